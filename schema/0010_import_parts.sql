-- karte schema 10: a large import is stored in parts, so that single-run
-- POSTs are not held up for the seconds a million runs take. Its ids are
-- reserved first (run_id_floor moves past them), its parts are committed
-- one by one between other writes, and until its last part is in, every
-- read leaves its id range out (the runs are there, invisible): all of it
-- appears in one commit, or, if karted dies on the way, none of it, and
-- the next start deletes what its parts had stored. One at a time.

CREATE TABLE import_pending (
	one  INTEGER PRIMARY KEY CHECK (one = 1),  -- one row at most
	lo   INTEGER NOT NULL,                     -- the reserved ids, lo..hi
	hi   INTEGER NOT NULL,
	hash TEXT    NOT NULL,                     -- the import's (imports.hash when done)
	beat TEXT    NOT NULL                      -- UTC, when its last part was stored
) STRICT;
