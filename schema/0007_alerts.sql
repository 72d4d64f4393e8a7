-- karte schema 7: regressions on ingest (see docs/api.md, "History and
-- regressions"). A run POSTed to /api/v1/runs is held against the earlier
-- runs of its point (series, p, n) in time order: measured_at, or
-- created_at without one, then id. runs_point finds them (the latest 100)
-- without a sort. A regression is kept as an alert; each series may set
-- its own thresholds.

CREATE INDEX runs_point ON runs (series_id, p, n, coalesce(measured_at, created_at), id);

-- {"rel": 0.05, "noise": 3, "min_runs": 5} or NULL for karted's defaults
ALTER TABLE series ADD COLUMN thresholds TEXT;

CREATE TABLE alerts (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused
	run_id          INTEGER NOT NULL,    -- the run that regressed (deleted with it)
	series_id       INTEGER NOT NULL,
	p               INTEGER NOT NULL,
	n               REAL    NOT NULL,
	regressions     TEXT    NOT NULL,    -- JSON array: metric, value, baseline, change
	created_at      TEXT    NOT NULL,    -- UTC, the commit that made it
	acknowledged_at TEXT,
	acknowledged_by TEXT                 -- the name of the token that acknowledged it
) STRICT;
CREATE INDEX alerts_run ON alerts (run_id);
CREATE INDEX alerts_created ON alerts (created_at, id);
