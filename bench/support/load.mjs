// Load generator of bench/http.mjs, in its own process (so that it does not share the event loop of
// the servers it measures): `node bench/support/load.mjs '<autocannon options as JSON>'` runs
// autocannon 8 and prints one line of JSON with the figures the benchmark reports.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}');
const result = await autocannon({ ...options, renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
const statuses = {};
for (const [key, value] of Object.entries(result)) if (/^[1-5]xx$/.test(key)) statuses[key] = value;
// Counts by exact status (402, 429, ...), for runs whose answers are not all 2xx.
const codes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]));
process.stdout.write(
  `${JSON.stringify({
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    codes,
  })}\n`,
);
