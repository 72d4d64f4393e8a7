-- karte schema 15 on PostgreSQL: nothing to change. SQLite's schema 15
-- keys its runs_series by epoch first (see schema/0015_series_by_epoch.sql)
-- so that a move of staged runs writes only into the newest part of it;
-- PostgreSQL stores each run straight into its table, whose inserts did
-- not grow with the record (docs/operations.md). The number is kept so
-- that both backends are at the same schema version; the statement below
-- only says so in the catalogue.
COMMENT ON INDEX runs_series IS
	'a series'' runs in id order (schema 6; SQLite keys its copy by epoch first since 15)';
