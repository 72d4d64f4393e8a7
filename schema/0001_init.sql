-- karte schema 1: runs and write tokens.
-- Scalars the API filters and analyses on are columns; regions and labels
-- are kept as the canonical JSON the server wrote (numbers at 17 digits),
-- so they round-trip exactly and one run is one row (one insert).

CREATE TABLE runs (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so cursors stay stable
	system          TEXT    NOT NULL,
	application     TEXT    NOT NULL,
	variant         TEXT    NOT NULL DEFAULT '',
	p               INTEGER NOT NULL CHECK (p >= 1),
	n               REAL    NOT NULL CHECK (n > 0),
	tau             REAL    NOT NULL CHECK (tau > 0),   -- seconds
	chi             REAL    NOT NULL,                   -- seconds; derived as tau - gamma when only gamma was posted
	gamma           REAL    NOT NULL,                   -- seconds; tau - chi when only chi was posted
	frequency_mhz   REAL,
	power_cap_w     REAL,
	energy_j        REAL,
	measured_at     TEXT,
	idempotency_key TEXT,
	regions         TEXT,                               -- JSON array or NULL
	labels          TEXT,                               -- JSON object or NULL
	created_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- series selection (system, application[, variant]) newest first; also
-- serves GET /systems (grouped by its prefix)
CREATE INDEX runs_series ON runs (system, application, variant, id);
-- GET /applications and filters on application alone
CREATE INDEX runs_application ON runs (application);
CREATE UNIQUE INDEX runs_idempotency ON runs (idempotency_key)
	WHERE idempotency_key IS NOT NULL;

CREATE TABLE tokens (
	name       TEXT PRIMARY KEY,
	hash       TEXT NOT NULL UNIQUE,                    -- hex SHA-256 of the token
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
	revoked_at TEXT
) STRICT;
