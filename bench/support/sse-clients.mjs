// SSE clients of bench/http.mjs, in their own process: `node bench/support/sse-clients.mjs PORT KEY N`
// opens N streams (raw node:http) to /v2/auto/queries/stream, in batches, tells its parent (IPC)
// `{type: 'ready'}` once every stream has its `ready` and first `notification:count` frames, then for
// each notification id reports `{type: 'arrivals', id, at: [...]}` once all N streams received it, `at`
// being process.hrtime.bigint() in ns as strings (CLOCK_MONOTONIC: comparable across processes).
import { Agent, request } from 'node:http';

const [port, key, countText] = process.argv.slice(2);
const count = Number(countText);
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const arrivals = new Map();
const streams = [];
let ready = 0;

function open(index) {
  return new Promise((resolve, reject) => {
    const stream = { ready: false, rest: '' };
    streams[index] = stream;
    const req = request({ host: '127.0.0.1', port: Number(port), path: '/v2/auto/queries/stream', agent, headers: { accept: 'text/event-stream', 'x-svc-api-key': key } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`stream ${index} answered ${response.statusCode}`));
        return;
      }
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        const at = process.hrtime.bigint();
        const blocks = (stream.rest + chunk).split('\n\n');
        stream.rest = blocks.pop();
        for (const block of blocks) {
          if (block.includes('event: notification:new')) {
            const id = /^id: ([0-9]+)$/m.exec(block)?.[1];
            const list = arrivals.get(id) ?? [];
            arrivals.set(id, list);
            list.push(String(at));
            if (list.length === count) process.send({ type: 'arrivals', id, at: list });
          } else if (!stream.ready && block.includes('event: notification:count')) {
            stream.ready = true;
            ready += 1;
            resolve();
          }
        }
      });
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

try {
  for (let start = 0; start < count; start += 100) {
    const batch = [];
    for (let index = start; index < Math.min(count, start + 100); index += 1) batch.push(open(index));
    await Promise.all(batch);
  }
  process.send({ type: 'ready', streams: ready });
} catch (error) {
  process.send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
process.on('message', (message) => {
  if (message === 'exit') process.exit(0);
});
