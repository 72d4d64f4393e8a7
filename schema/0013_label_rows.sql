-- karte schema 13 on SQLite: karted stores a run's label rows itself,
-- in a statement of its own after the run's (server/store/sqlite.c,
-- S_LABELS_ADD), as schema 12 had PostgreSQL do. The trigger on runs_new
-- made each run's INSERT write two tables, and a statement that writes
-- more than one row and may stop half-way (ABORT, the default) first
-- copies each page it changes into a statement journal, so that it can be
-- undone alone: for runs spread over many series, each index leaf the run
-- touched, 1.8 µs of a bulk run's 12 (15 %). Neither statement needs that
-- now: the run's is one row, the labels' is OR IGNORE. An INSERT through
-- the view runs (by hand) stores the labels in the view's own trigger;
-- who inserts into runs_new directly (karted, tests/bench/bare_sqlite.c)
-- stores them itself.
DROP TRIGGER run_labels_insert;
DROP TRIGGER runs_insert;

-- a run inserted without an id gets the one karted would give; its labels
-- get that id too (then the largest in runs_new)
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
