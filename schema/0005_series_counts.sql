-- karte schema 5: each series keeps its run count and newest run.
-- The catalogue (/api/v1/systems, /applications, /series) reads these
-- instead of counting the runs table, so its cost follows the number of
-- series, not of runs. The writer keeps them: one UPDATE per series a
-- commit touches, and one per delete.

ALTER TABLE series ADD COLUMN runs INTEGER NOT NULL DEFAULT 0;
ALTER TABLE series ADD COLUMN last_run_id INTEGER;   -- the largest id of its runs
ALTER TABLE series ADD COLUMN last_run_at TEXT;      -- that run's created_at

UPDATE series SET
	runs = (SELECT count(*) FROM runs WHERE series_id = series.id),
	last_run_id = (SELECT max(id) FROM runs WHERE series_id = series.id);
UPDATE series SET last_run_at = (SELECT created_at FROM runs WHERE id = series.last_run_id);
