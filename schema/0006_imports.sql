-- karte schema 6: imports, remembered by the hash of their file and mapping.
-- An import's runs are stored by one writer job, so their ids are
-- first_id .. first_id + runs - 1; the same file with the same mapping
-- again answers those ids and stores nothing. (A key of its own on every
-- run did the same for 40 % of an import's speed: an index entry per run.)

CREATE TABLE imports (
	hash       TEXT    PRIMARY KEY,   -- "import:" and 32 hex digits of SHA-256
	first_id   INTEGER NOT NULL,
	runs       INTEGER NOT NULL CHECK (runs >= 1),
	created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT, WITHOUT ROWID;
