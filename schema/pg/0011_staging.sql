-- karte schema 11 on PostgreSQL: nothing to change. SQLite's schema 11
-- keeps new runs in a small table of their own, merged into the large one
-- in bulk, since its index leaves, written whole to its WAL, grew with the
-- record; PostgreSQL logs row changes and keeps the indexes of millions of
-- runs in its shared buffers, and stores into 10^6 runs at 82 % of the
-- rate into an empty database (docs/operations.md). The number is kept so
-- that both backends are at the same schema version.
COMMENT ON TABLE runs IS 'the runs of every series (karte schema 11: one table on PostgreSQL)';
