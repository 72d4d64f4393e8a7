-- karte schema 14 on PostgreSQL: nothing to change. SQLite's schema 14
-- drops runs_point from its large table (see schema/0014_points_by_series.sql);
-- PostgreSQL keeps its runs_point, whose inserts did not grow with the
-- record there (docs/operations.md). The number is kept so that both
-- backends are at the same schema version; the statement below only says
-- so in the catalogue.
COMMENT ON INDEX runs_point IS
	'a point''s earlier runs for the regression check (schema 7; SQLite dropped its copy in 14)';
