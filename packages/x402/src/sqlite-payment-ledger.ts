import type Database from 'better-sqlite3';
import { canonicalKey, type NonceClaim, type NonceKey, type NonceRecord, type PaymentLedger } from './payment-ledger.js';

/** SQLite keeps 64-bit integers; a later `validBefore` is stored as this (kept until then, i.e. for good). */
const MAX_STORED_SECONDS = BigInt(Number.MAX_SAFE_INTEGER);

interface Row {
  network: string;
  payer: string;
  nonce: string;
  valid_before: number;
  route: string;
  amount: string;
  created_at: string;
  settlement: string | null;
}

/**
 * The `payment_nonces` table, created when missing (a host may have created it in its own migrations:
 * the EQL host's migration 3 has this very shape).
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS payment_nonces (
    network TEXT NOT NULL,
    payer TEXT NOT NULL,
    nonce TEXT NOT NULL,
    valid_before INTEGER NOT NULL,
    route TEXT NOT NULL,
    amount TEXT NOT NULL,
    created_at TEXT NOT NULL,
    settlement TEXT,
    PRIMARY KEY (network, payer, nonce)
  );
  CREATE INDEX IF NOT EXISTS payment_nonces_expiry ON payment_nonces (valid_before);
`;

/**
 * The payment ledger on the `payment_nonces` table of a SQLite database (created when missing).
 * `claim` is one INSERT whose primary-key conflict (network, payer, nonce) means a replay: atomic
 * across requests and processes sharing the database.
 */
export class SqlitePaymentLedger implements PaymentLedger {
  private readonly insert: Database.Statement;
  private readonly remove: Database.Statement;
  private readonly settle: Database.Statement;
  private readonly expire: Database.Statement;
  private readonly select: Database.Statement;

  constructor(db: Database.Database) {
    db.exec(SCHEMA);
    this.insert = db.prepare(
      `INSERT INTO payment_nonces (network, payer, nonce, valid_before, route, amount, created_at)
       VALUES (@network, @payer, @nonce, @validBefore, @route, @amount, @createdAt)
       ON CONFLICT (network, payer, nonce) DO NOTHING`,
    );
    this.remove = db.prepare('DELETE FROM payment_nonces WHERE network = ? AND payer = ? AND nonce = ? AND settlement IS NULL');
    this.settle = db.prepare('UPDATE payment_nonces SET settlement = ? WHERE network = ? AND payer = ? AND nonce = ?');
    this.expire = db.prepare('DELETE FROM payment_nonces WHERE valid_before < ?');
    this.select = db.prepare('SELECT * FROM payment_nonces WHERE network = ? AND payer = ? AND nonce = ?');
  }

  claim(claim: NonceClaim): boolean {
    const key = canonicalKey(claim);
    const validBefore = claim.validBefore > MAX_STORED_SECONDS ? MAX_STORED_SECONDS : claim.validBefore;
    const result = this.insert.run({ ...key, validBefore: Number(validBefore), route: claim.route, amount: claim.amount, createdAt: claim.createdAt });
    return result.changes === 1;
  }

  release(key: NonceKey): void {
    const { network, payer, nonce } = canonicalKey(key);
    this.remove.run(network, payer, nonce);
  }

  markSettled(key: NonceKey, settlement: string): void {
    const { network, payer, nonce } = canonicalKey(key);
    // The facilitator's text: a NUL kept as U+FFFD, as a PostgreSQL ledger must (PaymentLedger.markSettled).
    this.settle.run(settlement.replaceAll('\u0000', '\uFFFD'), network, payer, nonce);
  }

  prune(nowSeconds: number): number {
    return this.expire.run(Math.floor(nowSeconds)).changes;
  }

  lookup(key: NonceKey): NonceRecord | undefined {
    const { network, payer, nonce } = canonicalKey(key);
    const row = this.select.get(network, payer, nonce) as Row | undefined;
    if (!row) return undefined;
    return {
      network: row.network,
      payer: row.payer,
      nonce: row.nonce,
      validBefore: BigInt(row.valid_before),
      route: row.route,
      amount: row.amount,
      createdAt: row.created_at,
      settlement: row.settlement,
    };
  }
}
