-- karte schema 10 on PostgreSQL: large imports in parts (see
-- schema/0010_import_parts.sql). Several instances share the one row: an
-- instance that finds it older than a minute (its importer died) deletes
-- the runs of the range and takes its place.

CREATE TABLE import_pending (
	one  INTEGER PRIMARY KEY CHECK (one = 1),
	lo   BIGINT NOT NULL,
	hi   BIGINT NOT NULL,
	hash TEXT NOT NULL,
	beat TEXT NOT NULL
);
