-- wrk script of the service benchmark (Tools/bench/service/run): counts the answers by HTTP status
-- in every thread and, when wrk is done, writes one JSON object with the requests, wrk's socket
-- errors, the latency percentiles and those counts to the file named by BENCH_REPORT.
-- With BENCH_BODY set, every request is a POST of that file's bytes (the Content-Type comes from
-- wrk's -H); without it, wrk's plain GET of the URL.

local body_path = os.getenv("BENCH_BODY")
if body_path and body_path ~= "" then
    local f = assert(io.open(body_path, "rb"))
    wrk.method = "POST"
    wrk.body = f:read("*a")
    f:close()
end

local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

-- Per thread (each has its own Lua state); done() gathers them.
statuses = {}

function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
    local total = {}
    for _, thread in ipairs(threads) do
        for status, n in pairs(thread:get("statuses")) do
            total[status] = (total[status] or 0) + n
        end
    end
    local counts = {}
    for status, n in pairs(total) do
        counts[#counts + 1] = string.format('"%d": %d', status, n)
    end
    local e = summary.errors
    local f = assert(io.open(assert(os.getenv("BENCH_REPORT"), "BENCH_REPORT not set"), "w"))
    f:write(string.format(
        '{"requests": %d, "duration_us": %d, "bytes": %d, ' ..
        '"socket_errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, ' ..
        '"latency_us": {"p50": %d, "p90": %d, "p99": %d, "max": %d, "mean": %.1f}, "statuses": {%s}}\n',
        summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout,
        latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
        table.concat(counts, ", ")))
    f:close()
end
