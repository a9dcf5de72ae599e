import type pg from 'pg';
import { canonicalKey, type NonceClaim, type NonceKey, type NonceRecord, type PaymentLedger } from '@eql/x402';
import { storedText } from '../stored-text.js';

/** The largest `validBefore` stored, as in the SQLite ledger (a later one is kept until then, i.e. for good). */
const MAX_STORED_SECONDS = BigInt(Number.MAX_SAFE_INTEGER);

interface Row {
  network: string;
  payer: string;
  nonce: string;
  valid_before: string | number;
  route: string;
  amount: string;
  created_at: string;
  settlement: string | null;
}

/**
 * The x402 payment ledger on the `payment_nonces` table of the PostgreSQL store (pg-migrations.ts), with
 * the semantics of `SqlitePaymentLedger`: `claim` is one INSERT whose primary-key conflict (network,
 * payer, nonce) means a replay, atomic across requests and across hosts sharing the database.
 */
export class PgPaymentLedger implements PaymentLedger {
  constructor(private readonly pool: pg.Pool) {}

  async claim(claim: NonceClaim): Promise<boolean> {
    const { network, payer, nonce } = canonicalKey(claim);
    const validBefore = claim.validBefore > MAX_STORED_SECONDS ? MAX_STORED_SECONDS : claim.validBefore;
    const result = await this.pool.query(
      `INSERT INTO payment_nonces (network, payer, nonce, valid_before, route, amount, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (network, payer, nonce) DO NOTHING`,
      [network, payer, nonce, validBefore.toString(), claim.route, claim.amount, claim.createdAt],
    );
    return result.rowCount === 1;
  }

  async release(key: NonceKey): Promise<void> {
    const { network, payer, nonce } = canonicalKey(key);
    await this.pool.query('DELETE FROM payment_nonces WHERE network = $1 AND payer = $2 AND nonce = $3 AND settlement IS NULL', [network, payer, nonce]);
  }

  async markSettled(key: NonceKey, settlement: string): Promise<void> {
    const { network, payer, nonce } = canonicalKey(key);
    await this.pool.query('UPDATE payment_nonces SET settlement = $1 WHERE network = $2 AND payer = $3 AND nonce = $4', [storedText(settlement), network, payer, nonce]);
  }

  async prune(nowSeconds: number): Promise<number> {
    return (await this.pool.query('DELETE FROM payment_nonces WHERE valid_before < $1', [Math.floor(nowSeconds)])).rowCount ?? 0;
  }

  async lookup(key: NonceKey): Promise<NonceRecord | undefined> {
    const { network, payer, nonce } = canonicalKey(key);
    const row = (await this.pool.query<Row>('SELECT * FROM payment_nonces WHERE network = $1 AND payer = $2 AND nonce = $3', [network, payer, nonce])).rows[0];
    if (!row) return undefined;
    return { network: row.network, payer: row.payer, nonce: row.nonce, validBefore: BigInt(row.valid_before), route: row.route, amount: row.amount, createdAt: row.created_at, settlement: row.settlement };
  }
}
