-- karte schema 11: new runs go into runs_new, small enough for its index
-- leaves to stay cached; karted moves them into runs_base in bulk, in id
-- order, where a series' and a point's new entries land at their ends
-- (docs/operations.md, "Ingest as the record grows"). The view runs is
-- both tables; an INSERT or DELETE on it goes to the right one. An id is
-- in one table, never both; karted looks a key up in runs before storing.

ALTER TABLE runs RENAME TO runs_base;
DROP TRIGGER run_labels_insert;	-- moves to runs_new; run_labels_delete stays on runs_base

CREATE TABLE runs_new (	-- as runs_base (schema 4)
	id              INTEGER PRIMARY KEY,
	series_id       INTEGER NOT NULL REFERENCES series (id),
	p               INTEGER NOT NULL CHECK (p >= 1),
	n               REAL    NOT NULL CHECK (n > 0),
	tau             REAL    NOT NULL CHECK (tau > 0),
	chi             REAL,
	gamma           REAL,
	frequency_mhz   REAL,
	power_cap_w     REAL,
	energy_j        REAL,
	measured_at     TEXT,
	idempotency_key TEXT,
	regions         TEXT,
	labels          TEXT,
	created_at      TEXT    NOT NULL,
	CHECK ((chi IS NULL) = (gamma IS NULL))
) STRICT;
CREATE INDEX runs_new_series ON runs_new (series_id, id);
CREATE INDEX runs_new_point ON runs_new (series_id, p, n, coalesce(measured_at, created_at), id);
CREATE UNIQUE INDEX runs_new_idempotency ON runs_new (idempotency_key)
	WHERE idempotency_key IS NOT NULL;

CREATE VIEW runs AS
	SELECT id, series_id, p, n, tau, chi, gamma, frequency_mhz, power_cap_w, energy_j,
	       measured_at, idempotency_key, regions, labels, created_at FROM runs_base
	UNION ALL
	SELECT id, series_id, p, n, tau, chi, gamma, frequency_mhz, power_cap_w, energy_j,
	       measured_at, idempotency_key, regions, labels, created_at FROM runs_new;

-- labels: added on insert into runs_new (or the view), dropped on delete
-- from runs_base (schema 9's trigger, renamed with its table) or the
-- view. A merge moves runs with their labels, so neither its copy into
-- runs_base nor its emptying of runs_new may fire a trigger: who inserts
-- into runs_base or deletes from runs_new directly (karted copy, a delete
-- of a staged run) keeps run_labels itself.
CREATE TRIGGER run_labels_insert AFTER INSERT ON runs_new WHEN new.labels IS NOT NULL
BEGIN
	INSERT OR IGNORE INTO run_labels (key, value, run_id)
		SELECT key, value, new.id FROM json_each(new.labels) WHERE type = 'text';
END;

-- a run inserted without an id gets the one karted would give
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
END;

CREATE TRIGGER runs_delete INSTEAD OF DELETE ON runs
BEGIN
	DELETE FROM run_labels WHERE run_id = old.id AND (key, value) IN
		(SELECT key, value FROM json_each(old.labels) WHERE type = 'text');
	DELETE FROM runs_base WHERE id = old.id;
	DELETE FROM runs_new WHERE id = old.id;
END;
