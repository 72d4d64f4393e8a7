-- karte schema 8 on PostgreSQL: what other instances wrote, counted, and
-- the group commit of new runs as one statement.
--
-- Each karted keeps the windows of a point's earlier runs its regression
-- check needs (server/track/watch.c) from batch to batch. Two sequences tell
-- it when they may no longer be whole:
--
-- karte_writes: every write transaction of every instance takes a number
-- from it while it holds the writers' lock (pg_advisory_xact_lock of
-- server/store/pg.c's PG_WRITE_LOCK). When an instance's number follows
-- the one it took last, nobody wrote in between, and its windows stand
-- with no query; otherwise it checks, per point, that the run before the
-- new one is still the window's last. A rolled-back transaction leaves a
-- gap too: that only costs the check.
--
-- karte_resets: moved by whatever that check cannot see, by whoever does
-- it (an instance or psql): a run deleted, a series' thresholds changed,
-- an import (whose runs may fall inside a window). A write transaction
-- reads it under the lock; when it moved, the instance reads its windows
-- anew.
--
-- karte_write_begin: how every write transaction of karted begins: the
-- writers' lock, then the next run id (base), a write number and
-- karte_resets as it stands. Each statement inside takes its own snapshot
-- (the function is volatile), so the base is read under the lock.
--
-- karte_put_runs: a group commit of runs of known series without
-- idempotency keys, in one statement (an implicit transaction of its own):
-- karte_write_begin, the runs from arrays (a run's id is base + its place
-- - 1) and the series' counts (series, runs, the last run's place).

CREATE SEQUENCE karte_writes;
CREATE SEQUENCE karte_resets;

CREATE FUNCTION karte_reset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM nextval('karte_resets');
	RETURN NULL;
END
$$;
CREATE TRIGGER runs_deleted AFTER DELETE ON runs
	FOR EACH STATEMENT EXECUTE FUNCTION karte_reset();
CREATE TRIGGER series_thresholds AFTER UPDATE OF thresholds ON series
	FOR EACH STATEMENT EXECUTE FUNCTION karte_reset();
CREATE TRIGGER imports_added AFTER INSERT ON imports
	FOR EACH STATEMENT EXECUTE FUNCTION karte_reset();

CREATE FUNCTION karte_write_begin(lock_key BIGINT,
	OUT base BIGINT, OUT writes BIGINT, OUT resets BIGINT)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(lock_key);
	writes := nextval('karte_writes');
	resets := (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM karte_resets);
	base := greatest((SELECT high FROM run_id_floor), coalesce((SELECT max(id) FROM runs), 0)) + 1;
END
$$;

CREATE FUNCTION karte_put_runs(lock_key BIGINT, stamp TEXT,
	a_series BIGINT[], a_p BIGINT[], a_n FLOAT8[], a_tau FLOAT8[], a_chi FLOAT8[],
	a_gamma FLOAT8[], a_freq FLOAT8[], a_cap FLOAT8[], a_energy FLOAT8[],
	a_measured TEXT[], a_regions TEXT[], a_labels TEXT[],
	t_series BIGINT[], t_runs BIGINT[], t_last BIGINT[],
	OUT base BIGINT, OUT writes BIGINT, OUT resets BIGINT)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	SELECT b.base, b.writes, b.resets INTO base, writes, resets FROM karte_write_begin(lock_key) b;
	INSERT INTO runs (id, series_id, p, n, tau, chi, gamma, frequency_mhz, power_cap_w,
			  energy_j, measured_at, regions, labels, created_at)
	SELECT base + u.o - 1, u.s, u.p, u.n, u.t, u.c, u.g, u.f, u.w, u.e, u.m, u.r, u.l, stamp
	FROM unnest(a_series, a_p, a_n, a_tau, a_chi, a_gamma, a_freq, a_cap, a_energy,
		    a_measured, a_regions, a_labels) WITH ORDINALITY
		AS u(s, p, n, t, c, g, f, w, e, m, r, l, o);
	UPDATE series SET runs = series.runs + u.c,
		last_run_at = CASE WHEN base + u.l > coalesce(series.last_run_id, 0)
			      THEN stamp ELSE series.last_run_at END,
		last_run_id = greatest(coalesce(series.last_run_id, 0), base + u.l)
	FROM unnest(t_series, t_runs, t_last) AS u(id, c, l)
	WHERE series.id = u.id;
END
$$;
