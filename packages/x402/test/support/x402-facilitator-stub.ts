import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the stub answers one endpoint. */
export type StubBehaviour =
  /** verify: isValid true; settle: success with a transaction hash. */
  | 'ok'
  /** verify: isValid false; settle: success false (a 200 with a refusal). */
  | 'refuse'
  /** A 500 with a text body. */
  | 'error'
  /** A 200 whose body is not the API's shape. */
  | 'garbage'
  /** Never answers (until closed). */
  | 'hang';

export interface FacilitatorCall {
  path: string;
  body: { x402Version: number; paymentPayload: Record<string, unknown>; paymentRequirements: Record<string, unknown> };
}

/** A facilitator on 127.0.0.1: records what it is sent and answers as told. */
export interface FacilitatorStub {
  url: string;
  calls: FacilitatorCall[];
  behaviour: { verify: StubBehaviour; settle: StubBehaviour };
  /** The transaction hash `settle` reports. */
  transaction: string;
  close(): Promise<void>;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts a facilitator stub on a free loopback port. */
export async function startFacilitatorStub(): Promise<FacilitatorStub> {
  const hanging = new Set<ServerResponse>();
  const stub: FacilitatorStub = {
    url: '',
    calls: [],
    behaviour: { verify: 'ok', settle: 'ok' },
    transaction: `0x${'ab'.repeat(32)}`,
    close: () => new Promise((resolve) => {
      for (const response of hanging) response.destroy();
      server.close(() => resolve());
    }),
  };
  const server = createServer((request, response) => {
    void (async () => {
      const body = (await readJson(request)) as FacilitatorCall['body'];
      const path = request.url ?? '';
      stub.calls.push({ path, body });
      const behaviour = path === '/verify' ? stub.behaviour.verify : path === '/settle' ? stub.behaviour.settle : undefined;
      const payer = ((body.paymentPayload.payload as { authorization?: { from?: string } } | undefined)?.authorization?.from) ?? '';
      const network = String(body.paymentRequirements.network);
      if (behaviour === undefined) return send(response, 404, { error: 'not found' });
      if (behaviour === 'hang') return void hanging.add(response);
      if (behaviour === 'error') return void response.writeHead(500, { 'content-type': 'text/plain' }).end('internal trouble');
      if (behaviour === 'garbage') return send(response, 200, { hello: 'world' });
      if (path === '/verify') {
        return send(response, 200, behaviour === 'ok' ? { isValid: true, payer } : { isValid: false, invalidReason: 'insufficient_funds', invalidMessage: 'balance 0', payer });
      }
      return send(response, 200, behaviour === 'ok' ? { success: true, transaction: stub.transaction, network, payer } : { success: false, errorReason: 'transaction_failed', transaction: '', network, payer });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}
