// Latency probe of bench/x402-flood.mjs, in its own process: `node bench/support/ping.mjs <url> <seconds>`
// sends GET requests one after another on one keep-alive connection for that long and prints one line
// of JSON: how many, their p50, p90 and p99 in milliseconds (from process.hrtime, to 0.01 ms) and the
// statuses seen.
import { Agent, request } from 'node:http';

const [url, seconds = '4'] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const latencies = [];
const statuses = {};

function once() {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const sent = request(url, { agent }, (response) => {
      response.resume();
      response.on('end', () => {
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1;
        resolve();
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}

const until = process.hrtime.bigint() + BigInt(Math.round(Number(seconds) * 1e9));
while (process.hrtime.bigint() < until) await once();
agent.destroy();
latencies.sort((a, b) => a - b);
const at = (p) => Math.round(latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] * 100) / 100;
process.stdout.write(`${JSON.stringify({ count: latencies.length, p50: at(50), p90: at(90), p99: at(99), statuses })}\n`);
