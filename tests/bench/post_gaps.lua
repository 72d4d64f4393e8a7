-- wrk script: POST one run per request (as post_run.lua) and time every answer
-- (LuaJIT FFI clock_gettime): per wrk thread the longest gap between two
-- answers and how many gaps passed 10 and 50 ms, so a stall of the whole server
-- (no connection answered) is told from one connection waiting. Used to find
-- the ingest tail (docs/development.md, "Ingest goals"):
--   KARTE_TOKEN=... wrk -t2 -c64 -d8s -s tests/bench/post_gaps.lua http://127.0.0.1:8080/api/v1/runs
local ffi = require("ffi")
ffi.cdef[[ typedef struct { long tv_sec; long tv_nsec; } ts_t; int clock_gettime(int, ts_t *); ]]
local ts = ffi.new("ts_t")
local function now() ffi.C.clock_gettime(1, ts); return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9 end
local threads = {}
function setup(thread) table.insert(threads, thread) end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("KARTE_TOKEN") or "")
wrk.body = '{"system":"bench","application":"md","variant":"v1","p":16,"n":80000,"tau":12.5,"chi":5.6,"frequency_mhz":3000,"energy_j":1234.5,"regions":[{"name":"resid","time_s":1.2,"energy_j":150.3}],"labels":{"class":"C"}}'
last = nil; maxgap = 0; gaps50 = 0; gaps10 = 0; gapsum = 0
function response(status, headers, body)
  local t = now()
  if last then
    local g = t - last
    if g > maxgap then maxgap = g end
    if g > 0.05 then gaps50 = gaps50 + 1; gapsum = gapsum + g end
    if g > 0.01 then gaps10 = gaps10 + 1 end
  end
  last = t
end
function done(summary, latency, requests)
  for i, t in ipairs(threads) do
    io.write(string.format("thread %d: maxgap %.1f ms, gaps>10ms %d, gaps>50ms %d totalling %.0f ms\n", i, t:get("maxgap")*1e3, t:get("gaps10"), t:get("gaps50"), t:get("gapsum")*1e3))
  end
end
