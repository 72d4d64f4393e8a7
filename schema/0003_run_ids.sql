-- karte schema 3: run ids without AUTOINCREMENT.
-- AUTOINCREMENT made every insert read and rewrite sqlite_sequence, one more
-- page in every commit (20-30 % of a small group commit's cost). Ids are
-- still never reused: karted gives a new run an id above both the largest
-- id stored and run_id_floor.high, the largest id ever deleted, which a
-- delete raises in its own transaction (server/store/store.c).

CREATE TABLE run_id_floor (high INTEGER NOT NULL) STRICT;
INSERT INTO run_id_floor (high)
	SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'runs'), 0);

CREATE TABLE runs_v3 (
	id              INTEGER PRIMARY KEY,                -- never reused: see run_id_floor
	series_id       INTEGER NOT NULL REFERENCES series (id),
	p               INTEGER NOT NULL CHECK (p >= 1),
	n               REAL    NOT NULL CHECK (n > 0),
	tau             REAL    NOT NULL CHECK (tau > 0),   -- seconds
	chi             REAL    NOT NULL,                   -- seconds; tau - gamma when only gamma was posted
	gamma           REAL    NOT NULL,                   -- seconds; tau - chi when only chi was posted
	frequency_mhz   REAL,
	power_cap_w     REAL,
	energy_j        REAL,
	measured_at     TEXT,
	idempotency_key TEXT,
	regions         TEXT,                               -- JSON array or NULL
	labels          TEXT,                               -- JSON object or NULL
	created_at      TEXT    NOT NULL                    -- UTC, set by karted per commit
) STRICT;
INSERT INTO runs_v3 SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v3 RENAME TO runs;

-- as in schema 1
CREATE INDEX runs_series ON runs (series_id, id);
CREATE UNIQUE INDEX runs_idempotency ON runs (idempotency_key)
	WHERE idempotency_key IS NOT NULL;
