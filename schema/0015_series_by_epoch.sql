-- karte schema 15 on SQLite: runs_series begins with the run's epoch, its
-- id >> 18 (2^18 = 262,144 ids an epoch). A move of staged runs (schema
-- 11) puts each run's entry at its series' end in runs_series; keyed by
-- series alone, that end lies inside an index as large as the table, and
-- each entry costs a seek from the root and, every twenty or so entries
-- of a series, a rebalance of three full leaves (SQLite splits an index
-- leaf by sharing it with two neighbours): 24,400 of a 70,000-run move's
-- 30,133 pages at 10^7 runs were runs_series's. Keyed by epoch first, a
-- move writes only into the newest epoch's part of the index, which
-- never holds more than 2^18 entries, so a move costs at 10^7 what it
-- costs at 10^5 (docs/operations.md, "The series index by epoch").
-- A series is read one epoch after the other: karted's listing walks the
-- epochs itself (server/store/sqlite.c, sq_each_run), and the other reads
-- of a series find each epoch's part by a skip-scan, which SQLite chooses
-- only when sqlite_stat1 says an epoch holds many entries: karted writes
-- that row at every start (an ANALYZE of a small database would say
-- otherwise, and none says nothing).
DROP TRIGGER runs_insert;
DROP TRIGGER runs_delete;
DROP VIEW runs;

ALTER TABLE runs_base ADD COLUMN epoch INTEGER GENERATED ALWAYS AS (id >> 18) VIRTUAL;
ALTER TABLE runs_new ADD COLUMN epoch INTEGER GENERATED ALWAYS AS (id >> 18) VIRTUAL;
DROP INDEX runs_series;
CREATE INDEX runs_series ON runs_base (epoch, series_id, id, p, n, measured_at, created_at);

-- epoch a column of both tables, not an expression of the view: SQLite
-- merges the two arms in id order only when each gives plain columns
CREATE VIEW runs AS
	SELECT id, series_id, p, n, tau, chi, gamma, frequency_mhz, power_cap_w, energy_j,
	       measured_at, idempotency_key, regions, labels, created_at, epoch FROM runs_base
	UNION ALL
	SELECT id, series_id, p, n, tau, chi, gamma, frequency_mhz, power_cap_w, energy_j,
	       measured_at, idempotency_key, regions, labels, created_at, epoch FROM runs_new;

-- as schema 13's: a run inserted without an id gets the one karted would
-- give; its labels get that id too (then the largest in runs_new)
CREATE TRIGGER runs_insert INSTEAD OF INSERT ON runs
BEGIN
	INSERT INTO runs_new (id, series_id, p, n, tau, chi, gamma, frequency_mhz, power_cap_w,
			      energy_j, measured_at, idempotency_key, regions, labels, created_at)
	VALUES (coalesce(new.id, max((SELECT high FROM run_id_floor),
				     coalesce((SELECT max(id) FROM runs_base), 0),
				     coalesce((SELECT max(id) FROM runs_new), 0)) + 1),
		new.series_id, new.p, new.n, new.tau, new.chi, new.gamma, new.frequency_mhz,
		new.power_cap_w, new.energy_j, new.measured_at, new.idempotency_key, new.regions,
		new.labels, new.created_at);
	INSERT OR IGNORE INTO run_labels (key, value, run_id)
		SELECT key, value, coalesce(new.id, (SELECT max(id) FROM runs_new))
		FROM json_each(new.labels) WHERE type = 'text';
END;

-- as schema 11's
CREATE TRIGGER runs_delete INSTEAD OF DELETE ON runs
BEGIN
	DELETE FROM run_labels WHERE run_id = old.id AND (key, value) IN
		(SELECT key, value FROM json_each(old.labels) WHERE type = 'text');
	DELETE FROM runs_base WHERE id = old.id;
	DELETE FROM runs_new WHERE id = old.id;
END;

-- sqlite_stat1, for the row that karted writes at every start (SERIES_STAT in
-- server/store/sqlite.c)
ANALYZE sqlite_schema;
