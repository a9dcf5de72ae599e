import type { FastifyInstance } from 'fastify';
import { checkPerpetualSymbol, type Exchange, isRecord, redactSecrets } from '@eql/core';
import { callerKey } from '../auth/authenticate.js';
import type { HostContext } from '../context.js';
import { ApiError, notFound } from '../http/errors.js';
import { S } from './schemas.js';

const REQUIRED: Record<string, readonly string[]> = {
  api_key: ['apiKey', 'secret'],
  wallet: ['walletAddress', 'privateKey'],
};

/** Whether a connector's failure says the venue could not be reached (the ccxt adapter's EXCHANGE_UNAVAILABLE), not that it refused. */
function isUnreachable(error: unknown): boolean {
  return isRecord(error) && error.code === 'EXCHANGE_UNAVAILABLE';
}

/**
 * Exchange connections (spec 4.4): list (which also satisfies the trade preflight of spec 3), connect
 * (credentials verified with the venue before anything is stored, then sealed with AES-256-GCM and
 * never returned), disconnect, and the perpetual-symbol check of spec 2.9. The paper venue is always
 * connected.
 */
export function exchangeRoutes(app: FastifyInstance, context: HostContext): void {
  const { store } = context;
  const known = (exchange: string) => exchange === 'paper' || context.config.exchanges.includes(exchange);

  app.get('/v2/auto/exchanges', { schema: S.listExchanges }, async (request) => {
    const key = callerKey(request);
    await store.rememberExchangeCheck(key.id, new Date(context.now()).toISOString());
    const records = await store.exchangesOf(key.id);
    return {
      exchanges: [
        { exchange: 'paper', credentialType: 'none', status: 'connected', connectedAt: null, builtIn: true },
        ...records.map((record) => ({ exchange: record.exchange, credentialType: record.credentialType, status: 'connected', connectedAt: record.connectedAt, builtIn: false })),
      ],
      available: ['paper', ...context.config.exchanges],
    };
  });

  app.post('/v2/auto/exchanges', { schema: S.connectExchange }, async (request, reply) => {
    const key = callerKey(request);
    const { exchange, credentialType, credentials } = request.body as { exchange: string; credentialType: string; credentials: Record<string, unknown> };
    const connectedAt = new Date(context.now()).toISOString();
    if (exchange === 'paper') return reply.status(200).send({ exchange, credentialType: 'none', status: 'connected', connectedAt, builtIn: true });
    if (!known(exchange)) throw new ApiError('exchange_not_supported', `this host does not connect ${exchange}; it supports ${['paper', ...context.config.exchanges].join(', ')}`);
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(credentials)) {
      if (typeof value !== 'string' || value === '') throw new ApiError('invalid_credentials', `credentials.${name} must be a non-empty string`);
      fields[name] = value;
    }
    for (const name of REQUIRED[credentialType] ?? []) {
      if (fields[name] === undefined) throw new ApiError('invalid_credentials', `a ${credentialType} connection needs credentials.${name}`);
    }
    if (!isRecord(credentials) || Object.keys(fields).length === 0) throw new ApiError('invalid_credentials', 'credentials must not be empty');
    try {
      await context.connectExchange(exchange, credentialType, fields);
    } catch (error) {
      // Never echo a credential: the venue's message is redacted here too, whatever the adapter did
      // (whole values only: a short submitted value does not garble the words it occurs in).
      const reason = redactSecrets(error instanceof Error ? error.message : 'verification failed', Object.values(fields));
      // A venue that could not be asked is not a refusal: the same 502 as validate-symbol's (issue 15).
      if (isUnreachable(error)) throw new ApiError('venue_unreachable', `${exchange} could not be reached to verify the credentials: ${reason}`);
      throw new ApiError('exchange_credentials_rejected', `${exchange} refused these credentials: ${reason}`);
    }
    await store.upsertExchange({ keyId: key.id, exchange, credentialType, credentialsSealed: context.box.seal(JSON.stringify(fields)), connectedAt });
    context.runner.forgetExchange(key.id, exchange);
    return reply.status(201).send({ exchange, credentialType, status: 'connected', connectedAt, builtIn: false });
  });

  app.delete('/v2/auto/exchanges/:exchange', { schema: S.disconnectExchange }, async (request) => {
    const key = callerKey(request);
    const { exchange } = request.params as { exchange: string };
    // paper is listed as connected and cannot be otherwise: a 409 that says so, not a 404 (issue 15).
    if (exchange === 'paper') throw new ApiError('exchange_built_in', 'paper is built in and always connected; it cannot be disconnected');
    if (!(await store.deleteExchange(key.id, exchange))) throw notFound(`exchange connection ${exchange}`);
    context.runner.forgetExchange(key.id, exchange);
    return { exchange, disconnectedAt: new Date(context.now()).toISOString() };
  });

  app.get('/v2/auto/validate-symbol/:exchange/:symbol', { schema: S.validateSymbol }, async (request) => {
    const key = callerKey(request);
    const { exchange, symbol } = request.params as { exchange: string; symbol: string };
    if (!/^[a-z][a-z0-9_]{1,31}$/.test(exchange)) throw new ApiError('invalid_exchange', 'the exchange id is lowercase letters, digits and _');
    if (symbol.trim() === '' || symbol.length > 64) throw new ApiError('invalid_symbol', 'the symbol is empty or too long');
    if (exchange === 'paper') return { supported: String(checkPerpetualSymbol(symbol).ok && context.runner.hasPrice(symbol)) as 'true' | 'false' };
    const connected = (await store.exchangeOf(key.id, exchange)) !== undefined;
    if (!connected && !known(exchange)) throw new ApiError('exchange_not_supported', `this host does not know ${exchange}`);
    let venue: Exchange | undefined;
    try {
      venue = connected ? await context.runner.exchangeFor(exchange, key.id) : await context.publicExchange(exchange);
      return { supported: String(venue ? await venue.isPerpetual(symbol) : false) as 'true' | 'false' };
    } catch (error) {
      throw new ApiError('venue_unreachable', `${exchange} could not be asked: ${error instanceof Error ? error.message : 'unknown error'}`);
    }
  });
}
