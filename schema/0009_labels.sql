-- karte schema 9: labels in a table of their own, so that a label filter
-- (label.K=V) is an index lookup, not a scan of every run's JSON.
--
-- run_labels holds one row per label of a run, kept by triggers from
-- runs.labels (the JSON as posted stays the run's own copy): whoever
-- inserts or deletes runs (karted, an import, karted copy, sqlite3 by
-- hand) keeps it whole. Its key (key, value, run_id) gives a label's runs
-- in id order, newest first by walking it backwards: a listing filtered by
-- a label reads only the runs that have it. Label values are strings
-- (karted refuses others); the rare run with one key twice in its JSON
-- has both pairs here, and karted still checks every listed run's labels
-- as a JSON reader does (the last value counts).

CREATE TABLE run_labels (
	key    TEXT    NOT NULL,
	value  TEXT    NOT NULL,
	run_id INTEGER NOT NULL,
	PRIMARY KEY (key, value, run_id)
) STRICT, WITHOUT ROWID;

INSERT OR IGNORE INTO run_labels (key, value, run_id)
	SELECT j.key, j.value, r.id FROM runs r, json_each(r.labels) j
	WHERE r.labels IS NOT NULL AND j.type = 'text';

CREATE TRIGGER run_labels_insert AFTER INSERT ON runs WHEN new.labels IS NOT NULL
BEGIN
	INSERT OR IGNORE INTO run_labels (key, value, run_id)
		SELECT key, value, new.id FROM json_each(new.labels) WHERE type = 'text';
END;

CREATE TRIGGER run_labels_delete AFTER DELETE ON runs WHEN old.labels IS NOT NULL
BEGIN
	DELETE FROM run_labels WHERE run_id = old.id AND key IN
		(SELECT key FROM json_each(old.labels)) AND value IN
		(SELECT value FROM json_each(old.labels) WHERE type = 'text');
END;
