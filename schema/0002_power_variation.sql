-- karte schema 2: power variation tables (Inadomi et al.): each module's
-- power relative to the mean of its system, measured once per system and
-- reused to estimate module power for any application.

CREATE TABLE power_variation (
	system      TEXT NOT NULL,
	module      INTEGER NOT NULL CHECK (module >= 0),  -- CPU+DRAM module index
	ratio_max   REAL NOT NULL CHECK (ratio_max > 0),    -- P_i^max / mean P^max
	ratio_min   REAL NOT NULL CHECK (ratio_min > 0),    -- P_i^min / mean P^min
	measured_at TEXT,
	PRIMARY KEY (system, module)
) STRICT;
