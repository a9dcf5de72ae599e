import { TransportError } from '@eql/core';

/**
 * An HttpTransport (the engine's interface for webhooks and bot messages) on `fetch` that sends
 * every request to one local address, whatever URL the query names: the demo delivers its webhooks
 * to the receiver it runs itself and sends nothing out. It keeps count of the requests under way, and
 * of the ones announced with `expect()` (a webhook being signed), so a replay in virtual time can wait
 * for them before moving the clock on.
 *
 * For real deliveries use `UndiciHttpTransport` of `@eql/adapters` (it refuses private addresses at
 * connect time and follows no redirects), or send to `request.url` here.
 */
export class LoopbackTransport {
  #target;
  #inFlight = new Set();
  #expected = 0;

  constructor(target) {
    this.#target = target;
  }

  /** Announces a request that is on its way (signing a webhook is asynchronous). */
  expect() {
    this.#expected += 1;
  }

  send(request) {
    this.#expected = Math.max(0, this.#expected - 1);
    const sent = this.#deliver(request);
    this.#inFlight.add(sent);
    const settle = () => this.#inFlight.delete(sent);
    sent.then(settle, settle);
    return sent;
  }

  /** Resolves once no request is announced or under way (the engine may start more while it waits). */
  async idle() {
    while (this.#expected > 0 || this.#inFlight.size > 0) {
      if (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
      // Let the engine react to the responses (it may send the next action's request), or finish signing.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async #deliver({ method, headers, body, timeoutMs }) {
    try {
      const response = await fetch(this.#target, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
    } catch (error) {
      const timeout = error instanceof Error && error.name === 'TimeoutError';
      throw new TransportError(timeout ? 'timeout' : 'network', timeout ? 'no response in time' : 'the request failed');
    }
  }
}
