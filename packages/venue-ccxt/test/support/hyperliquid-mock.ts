import { startServer, type LocalServer } from '../../../adapters/test/support/local-server.js';

/** A Hyperliquid API double: `POST /info` by `type`, `POST /exchange` by `action.type`. */
export interface HyperliquidMock {
  server: LocalServer;
  url: string;
  /** Bodies of every POST, parsed. */
  posts: Array<{ path: string; body: Record<string, unknown> }>;
  /** Orders placed, by cloid. */
  orders: Map<string, { oid: number; coin: string; side: string; px: string; sz: string }>;
  /** The next this-many `orderStatus` lookups answer `unknownOid` (an order not visible yet). */
  lookupLag: number;
  /** Answer of `clearinghouseState` (HTTP status and body). */
  clearinghouse: { status: number; body: unknown };
  close(): Promise<void>;
}

const SPOT_META = {
  tokens: [
    { name: 'USDC', szDecimals: 8, weiDecimals: 8, index: 0, tokenId: '0x6d1e7cde53ba9467b783cb7c530ce054', isCanonical: true },
    { name: 'PURR', szDecimals: 0, weiDecimals: 5, index: 1, tokenId: '0xc1fb593aeffbeb02f85e0308e9956a90', isCanonical: true },
  ],
  universe: [{ name: 'PURR/USDC', tokens: [1, 0], index: 0, isCanonical: true }],
};

const PERP_META = {
  universe: [
    { name: 'BTC', szDecimals: 5, maxLeverage: 40 },
    { name: 'ETH', szDecimals: 4, maxLeverage: 25 },
  ],
};

const PERP_CTXS = [
  { markPx: '100000.0', midPx: '100001.0', oraclePx: '100000.0', prevDayPx: '99000.0', dayNtlVlm: '1000000.0', funding: '0.0001', openInterest: '100.0' },
  { markPx: '3000.0', midPx: '3000.5', oraclePx: '3000.0', prevDayPx: '2900.0', dayNtlVlm: '500000.0', funding: '0.0', openInterest: '1000.0' },
];

/** A cross-margin account with 1500.5 USDC, 100 of it in use. */
export function defaultClearinghouse(): unknown {
  return {
    marginSummary: { accountValue: '1500.5', totalNtlPos: '0.0', totalRawUsd: '1500.5', totalMarginUsed: '100.0' },
    crossMarginSummary: { accountValue: '1500.5', totalNtlPos: '0.0', totalRawUsd: '1500.5', totalMarginUsed: '100.0' },
    crossMaintenanceMarginUsed: '0.0',
    withdrawable: '1400.5',
    assetPositions: [],
    time: 1_700_000_000_000,
  };
}

function orderStatusOf(placed: { oid: number; coin: string; side: string; px: string; sz: string }, cloid: string): unknown {
  return {
    status: 'order',
    order: {
      order: { coin: placed.coin, side: placed.side, limitPx: placed.px, sz: '0.0', oid: placed.oid, timestamp: 1_700_000_000_000, origSz: placed.sz, cloid, orderType: 'Market', tif: 'Ioc', reduceOnly: false, isTrigger: false, triggerPx: '0.0', triggerCondition: 'N/A', isPositionTpsl: false, children: [] },
      status: 'filled',
      statusTimestamp: 1_700_000_000_000,
    },
  };
}

export async function startHyperliquidMock(): Promise<HyperliquidMock> {
  const posts: HyperliquidMock['posts'] = [];
  const orders: HyperliquidMock['orders'] = new Map();
  let nextOid = 1000;
  const mock = {
    posts,
    orders,
    lookupLag: 0,
    clearinghouse: { status: 200, body: defaultClearinghouse() },
  } as HyperliquidMock;
  const server = await startServer((request, response, text) => {
    const body = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
    posts.push({ path: request.url ?? '', body });
    const reply = (status: number, value: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    if (request.url === '/info') {
      switch (body.type) {
        case 'spotMeta':
          return reply(200, SPOT_META);
        case 'spotMetaAndAssetCtxs':
          return reply(200, [SPOT_META, [{ dayNtlVlm: '8906.0', markPx: '0.14', midPx: '0.2', prevDayPx: '0.2' }]]);
        case 'metaAndAssetCtxs':
          return reply(200, [PERP_META, PERP_CTXS]);
        case 'perpDexs':
          return reply(200, [null]);
        case 'clearinghouseState':
          return reply(mock.clearinghouse.status, mock.clearinghouse.body);
        case 'orderStatus': {
          const placed = typeof body.oid === 'string' ? orders.get(body.oid) : undefined;
          if (mock.lookupLag > 0) mock.lookupLag -= 1;
          else if (placed !== undefined) return reply(200, orderStatusOf(placed, body.oid as string));
          return reply(200, { status: 'unknownOid' });
        }
        default:
          return reply(200, null);
      }
    }
    if (request.url === '/exchange') {
      const action = (body.action ?? {}) as Record<string, unknown>;
      if (action.type === 'order') {
        const wire = (action.orders as Array<Record<string, unknown>>)[0] ?? {};
        const oid = nextOid++;
        const cloid = String(wire.c);
        if (orders.has(cloid)) return reply(200, { status: 'ok', response: { type: 'order', data: { statuses: [{ error: 'Duplicate cloid' }] } } });
        orders.set(cloid, { oid, coin: wire.a === 0 ? 'BTC' : 'ETH', side: wire.b === true ? 'B' : 'A', px: String(wire.p), sz: String(wire.s) });
        return reply(200, { status: 'ok', response: { type: 'order', data: { statuses: [{ filled: { totalSz: String(wire.s), avgPx: '100010.0', oid } }] } } });
      }
      return reply(200, { status: 'ok', response: { type: 'default' } });
    }
    return reply(404, { error: 'no route' });
  });
  mock.server = server;
  mock.url = server.url;
  mock.close = () => server.close();
  return mock;
}
