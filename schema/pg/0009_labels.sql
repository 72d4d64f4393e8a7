-- karte schema 9 on PostgreSQL: labels in a table of their own, so that a
-- label filter (label.K=V) is an index lookup, not a scan of every run's
-- JSON (schema/0009_labels.sql says more). Statement-level triggers with
-- transition tables keep it from runs.labels: one INSERT ... SELECT per
-- COPY or karte_put_runs, not a trigger call per run.

CREATE TABLE run_labels (
	key    TEXT COLLATE "C" NOT NULL,
	value  TEXT COLLATE "C" NOT NULL,
	run_id BIGINT NOT NULL,
	PRIMARY KEY (key, value, run_id)
);

INSERT INTO run_labels (key, value, run_id)
	SELECT j.key, j.value, r.id FROM runs r, jsonb_each_text(r.labels::jsonb) j
	WHERE r.labels IS NOT NULL
	ON CONFLICT DO NOTHING;

CREATE FUNCTION karte_labels_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO run_labels (key, value, run_id)
		SELECT j.key, j.value, n.id FROM new_runs n, jsonb_each_text(n.labels::jsonb) j
		WHERE n.labels IS NOT NULL
		ON CONFLICT DO NOTHING;
	RETURN NULL;
END
$$;

CREATE FUNCTION karte_labels_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM run_labels l USING old_runs o, jsonb_each_text(o.labels::jsonb) j
		WHERE o.labels IS NOT NULL AND l.key = j.key AND l.value = j.value
		AND l.run_id = o.id;
	RETURN NULL;
END
$$;

CREATE TRIGGER run_labels_insert AFTER INSERT ON runs REFERENCING NEW TABLE AS new_runs
	FOR EACH STATEMENT EXECUTE FUNCTION karte_labels_insert();
CREATE TRIGGER run_labels_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS old_runs
	FOR EACH STATEMENT EXECUTE FUNCTION karte_labels_delete();
