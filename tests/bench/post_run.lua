-- wrk script: POST one run per request (token from the KARTE_TOKEN env var)
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. (os.getenv("KARTE_TOKEN") or "")
wrk.body = '{"system":"bench","application":"md","variant":"v1","p":16,"n":80000,' ..
           '"tau":12.5,"chi":5.6,"frequency_mhz":3000,"energy_j":1234.5,' ..
           '"regions":[{"name":"resid","time_s":1.2,"energy_j":150.3}],' ..
           '"labels":{"class":"C"}}'
