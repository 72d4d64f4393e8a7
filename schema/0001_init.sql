-- karte schema 1: series, runs and write tokens.
-- A series is what the analyses select: (system, application, variant).
-- Runs point at their series by integer id, so the one index a run insert
-- has to update is on two integers. Regions and labels are kept as compact
-- JSON with the numbers as posted, so they round-trip exactly and one run
-- is one row.

CREATE TABLE series (
	id          INTEGER PRIMARY KEY,
	system      TEXT NOT NULL,
	application TEXT NOT NULL,
	variant     TEXT NOT NULL,
	UNIQUE (system, application, variant)
) STRICT;
CREATE INDEX series_application ON series (application);

CREATE TABLE runs (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: cursors and links stay valid
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

-- a series' runs newest first (listing, analyses, counts)
CREATE INDEX runs_series ON runs (series_id, id);
CREATE UNIQUE INDEX runs_idempotency ON runs (idempotency_key)
	WHERE idempotency_key IS NOT NULL;

CREATE TABLE tokens (
	name       TEXT PRIMARY KEY,
	hash       TEXT NOT NULL UNIQUE,                    -- hex SHA-256 of the token
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	revoked_at TEXT
) STRICT;
