-- karte schema 13 on PostgreSQL: nothing to change. SQLite's schema 13
-- has karted store a run's label rows itself, as PostgreSQL's schema 12
-- already did (see schema/0013_label_rows.sql). The number is kept so
-- that both backends are at the same schema version; the statement below
-- only says so in the catalogue.
COMMENT ON FUNCTION karte_labels_insert() IS
	'a run''s labels as rows of run_labels (schemas 9 and 12; 13 changed nothing here)';
