-- karte schema 12 on PostgreSQL: a run's labels go into run_labels as
-- plain rows. The trigger of schema 9 inserted them ON CONFLICT DO
-- NOTHING, which PostgreSQL carries out as a speculative insertion (a
-- token, then a second WAL record to confirm each row). No row can
-- conflict: run_id is the new run's own (runs' primary key), and a
-- labels object read as jsonb holds each key once. Single-run POSTs
-- with a label measured 9 % faster without it (docs/operations.md).
CREATE OR REPLACE FUNCTION karte_labels_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO run_labels (key, value, run_id)
		SELECT j.key, j.value, n.id FROM new_runs n, jsonb_each_text(n.labels::jsonb) j
		WHERE n.labels IS NOT NULL;
	RETURN NULL;
END
$$;
