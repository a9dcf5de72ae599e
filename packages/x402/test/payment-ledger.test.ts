import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryPaymentLedger, SqlitePaymentLedger, type NonceClaim, type PaymentLedger } from '../src/index.js';
import { newNonce } from './support/x402-payer.js';

const PAYER = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';

function claim(overrides: Partial<NonceClaim> = {}): NonceClaim {
  return { network: 'eip155:84532', payer: PAYER, nonce: newNonce(), validBefore: 1_000n, route: 'POST /x402/v2/chat', amount: '45000', createdAt: '2026-01-05T12:00:00.000Z', ...overrides };
}

const databases: Database.Database[] = [];
afterEach(() => {
  for (const db of databases.splice(0)) db.close();
});

const ledgers: Array<[string, () => PaymentLedger]> = [
  ['MemoryPaymentLedger', () => new MemoryPaymentLedger()],
  [
    'SqlitePaymentLedger',
    () => {
      const db = new Database(':memory:');
      databases.push(db);
      return new SqlitePaymentLedger(db);
    },
  ],
];

describe.each(ledgers)('%s', (_name, create) => {
  it('claims a nonce once: the second claim is a replay, whatever the case of payer and nonce', async () => {
    const ledger = create();
    const first = claim();
    expect(await ledger.claim(first)).toBe(true);
    expect(await ledger.claim(first)).toBe(false);
    expect(await ledger.claim({ ...first, payer: PAYER.toLowerCase(), nonce: first.nonce.toUpperCase().replace('0X', '0x') })).toBe(false);
    expect(await ledger.claim({ ...first, network: 'eip155:8453' })).toBe(true);
    expect(await ledger.claim({ ...first, payer: '0x1111111111111111111111111111111111111111' })).toBe(true);
    expect(await ledger.lookup(first)).toEqual({ ...first, payer: PAYER.toLowerCase(), settlement: null });
  });

  it('releases an unsettled nonce, never a settled one', async () => {
    const ledger = create();
    const pending = claim();
    await ledger.claim(pending);
    await ledger.release(pending);
    expect(await ledger.lookup(pending)).toBeUndefined();
    expect(await ledger.claim(pending)).toBe(true);

    const settled = claim();
    await ledger.claim(settled);
    await ledger.markSettled(settled, '0xabc');
    await ledger.release(settled);
    expect(await ledger.lookup(settled)).toMatchObject({ settlement: '0xabc' });
    expect(await ledger.claim(settled)).toBe(false);
  });

  it('prunes nonces whose authorization expired, settled or not', async () => {
    const ledger = create();
    const old = claim({ validBefore: 99n });
    const edge = claim({ validBefore: 100n });
    const young = claim({ validBefore: 500n });
    const forever = claim({ validBefore: 1n << 200n });
    for (const entry of [old, edge, young, forever]) await ledger.claim(entry);
    await ledger.markSettled(old, 'local');
    expect(await ledger.prune(100)).toBe(1);
    expect(await ledger.lookup(old)).toBeUndefined();
    expect(await ledger.lookup(edge)).toBeDefined();
    expect(await ledger.prune(10_000_000)).toBe(2);
    expect(await ledger.lookup(forever)).toBeDefined();
    expect(await ledger.claim(forever)).toBe(false);
  });
});

describe('SqlitePaymentLedger', () => {
  it('shares replay protection between two ledgers on one database (two host processes), creating its table once', () => {
    const db = new Database(':memory:');
    databases.push(db);
    const a = new SqlitePaymentLedger(db);
    const b = new SqlitePaymentLedger(db);
    const nonce = claim();
    expect(a.claim(nonce)).toBe(true);
    expect(b.claim(nonce)).toBe(false);
    const row = db.prepare('SELECT payer, valid_before, route, amount, settlement FROM payment_nonces').get();
    expect(row).toEqual({ payer: PAYER.toLowerCase(), valid_before: 1000, route: 'POST /x402/v2/chat', amount: '45000', settlement: null });
  });
});
