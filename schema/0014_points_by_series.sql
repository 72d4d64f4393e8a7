-- karte schema 14 on SQLite: runs_base keeps no index by point. A move of
-- staged runs (schema 11) puts each run into every index of runs_base at
-- its key's place. runs_series (series_id, id) takes a series' new runs at
-- its end, a leaf a series; runs_point (series_id, p, n, time, id) took
-- each run at its point's end, and with 10^7 runs over 2.8*10^5 points
-- that was a leaf of its own per run: 12 of the move's 17 us a run
-- (docs/operations.md, "A series walked instead of runs_point").
-- The regression check's reads of a point's earlier runs in runs_base now
-- walk the series in runs_series instead, once for all the points of the
-- series it asks about together (server/store/sqlite.c, sq_points_before),
-- so runs_series carries what that walk compares: p, n and the two times.
-- runs_new, small and cached, keeps its runs_new_point.
DROP INDEX runs_point;
DROP INDEX runs_series;
CREATE INDEX runs_series ON runs_base (series_id, id, p, n, measured_at, created_at);
