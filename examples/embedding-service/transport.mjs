import { TransportError } from '@eql/core';

/**
 * An HttpTransport (the engine's interface for webhooks and bot messages) on `fetch` that sends
 * every request to one local address, whatever URL the query names: the demo delivers its webhooks
 * to the receiver it runs itself and sends nothing out. It keeps count of the requests under way, so a
 * replay in virtual time can wait for them before moving the clock on.
 *
 * For real deliveries use `UndiciHttpTransport` of `@eql/adapters` (it refuses private addresses at
 * connect time and follows no redirects), or send to `request.url` here.
 */
export class LoopbackTransport {
  #target;
  #inFlight = new Set();

  constructor(target) {
    this.#target = target;
  }

  send(request) {
    const sent = this.#deliver(request);
    this.#inFlight.add(sent);
    const settle = () => this.#inFlight.delete(sent);
    sent.then(settle, settle);
    return sent;
  }

  /** Resolves once no request is under way (the engine may start more while it waits). */
  async idle() {
    while (this.#inFlight.size > 0) {
      await Promise.allSettled([...this.#inFlight]);
      // Let the engine react to the responses (it may send the next action's request).
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
