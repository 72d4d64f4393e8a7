-- wrk script: POST one run per request, each to one of KARTE_SERIES series
-- (application a0 .. a<KARTE_SERIES-1>, taken in turn), as a site's many
-- job scripts do; the token from the KARTE_TOKEN env var
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("KARTE_TOKEN") or "")
local series = tonumber(os.getenv("KARTE_SERIES") or "10000")
local i = 0
local ps = {1, 2, 4, 8, 16, 32, 64}

request = function()
   i = i + 1
   local body = string.format('{"system":"grow","application":"a%d","p":%d,"n":%d,"tau":%.2f,"chi":1.0,' ..
                              '"energy_j":120.0,"regions":[{"name":"main","time_s":9.0,"energy_j":100.0}],' ..
                              '"labels":{"rep":"w"}}',
                              i % series, ps[1 + math.floor(i / series) % 7],
                              1000 * (1 + math.floor(i / (series * 7)) % 4),
                              10.0 + (i % 97) / 100)
   return wrk.format("POST", nil, wrk.headers, body)
end
