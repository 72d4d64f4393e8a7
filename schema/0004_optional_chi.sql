-- karte schema 4: chi and gamma are optional.
-- A run may carry tau alone (a wrapped command without regions, most files
-- of other tools): chi and gamma are then NULL, and the analyses that need
-- chi leave such runs out and say how many. SQLite cannot drop NOT NULL in
-- place, so the table is made again; ids, and run_id_floor, stay as they are.

CREATE TABLE runs_v4 (
	id              INTEGER PRIMARY KEY,                -- never reused: see run_id_floor
	series_id       INTEGER NOT NULL REFERENCES series (id),
	p               INTEGER NOT NULL CHECK (p >= 1),
	n               REAL    NOT NULL CHECK (n > 0),
	tau             REAL    NOT NULL CHECK (tau > 0),   -- seconds
	chi             REAL,                               -- seconds, NULL when neither chi nor gamma was posted
	gamma           REAL,                               -- seconds, NULL exactly when chi is
	frequency_mhz   REAL,
	power_cap_w     REAL,
	energy_j        REAL,
	measured_at     TEXT,
	idempotency_key TEXT,
	regions         TEXT,                               -- JSON array or NULL
	labels          TEXT,                               -- JSON object or NULL
	created_at      TEXT    NOT NULL,                   -- UTC, set by karted per commit
	CHECK ((chi IS NULL) = (gamma IS NULL))
) STRICT;
INSERT INTO runs_v4 SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v4 RENAME TO runs;

-- as in schema 1
CREATE INDEX runs_series ON runs (series_id, id);
CREATE UNIQUE INDEX runs_idempotency ON runs (idempotency_key)
	WHERE idempotency_key IS NOT NULL;
