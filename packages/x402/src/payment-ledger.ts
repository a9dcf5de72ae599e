/** A value, or a promise of it: a ledger in another process answers asynchronously. */
type MaybePromise<T> = T | Promise<T>;

/** Identifies one signed authorization: USDC rejects a second use of (payer, nonce) on a chain. */
export interface NonceKey {
  /** CAIP-2 network (the same for v1 and v2 payments: they share the on-chain nonce space). */
  network: string;
  payer: string;
  /** bytes32 hex. */
  nonce: string;
}

/** A nonce being spent by a request. */
export interface NonceClaim extends NonceKey {
  /** Unix seconds after which the authorization is dead (the row can then be pruned). */
  validBefore: bigint;
  /** The route paid for, for the record (`POST /x402/v2/chat`). */
  route: string;
  /** Atomic units, decimal. */
  amount: string;
  /** ISO time of the claim. */
  createdAt: string;
}

/** A claimed nonce as the ledger holds it. */
export interface NonceRecord extends NonceClaim {
  /** Set once the payment is settled: the transaction hash, or `local` (offline: nothing on chain). */
  settlement: string | null;
}

/**
 * The used nonces of x402 payments: replay protection for as long as an authorization is valid.
 * `claim` is atomic (two requests with the same nonce: one wins); `release` frees an unsettled nonce
 * (the paid handler failed, so the payer is not charged and may reuse the authorization); a settled
 * nonce is never released; `prune` drops nonces whose authorization has expired (they can no longer be
 * replayed: verification refuses them first).
 */
export interface PaymentLedger {
  /** Records the nonce; false when it was already used (a replay). */
  claim(claim: NonceClaim): MaybePromise<boolean>;
  /** Frees an unsettled nonce; does nothing to a settled or unknown one. */
  release(key: NonceKey): MaybePromise<void>;
  /**
   * Records the settlement of a claimed nonce (the facilitator's transaction). A ledger at rest keeps a
   * NUL (U+0000) of it as U+FFFD, as the EQL host's stores keep text: PostgreSQL's text cannot hold one.
   */
  markSettled(key: NonceKey, settlement: string): MaybePromise<void>;
  /** Deletes nonces whose `validBefore` is before `nowSeconds`; returns how many. */
  prune(nowSeconds: number): MaybePromise<number>;
  /** The record of a nonce, if claimed. */
  lookup(key: NonceKey): MaybePromise<NonceRecord | undefined>;
}

/** The key's fields in canonical form (addresses and hex compare case-insensitively). */
export function canonicalKey(key: NonceKey): NonceKey {
  return { network: key.network, payer: key.payer.toLowerCase(), nonce: key.nonce.toLowerCase() };
}

/** A ledger in memory: for tests and single-process hosts that may forget nonces on restart. */
export class MemoryPaymentLedger implements PaymentLedger {
  private readonly records = new Map<string, NonceRecord>();

  private static id(key: NonceKey): string {
    const canonical = canonicalKey(key);
    return `${canonical.network}|${canonical.payer}|${canonical.nonce}`;
  }

  claim(claim: NonceClaim): boolean {
    const id = MemoryPaymentLedger.id(claim);
    if (this.records.has(id)) return false;
    this.records.set(id, { ...claim, ...canonicalKey(claim), settlement: null });
    return true;
  }

  release(key: NonceKey): void {
    const id = MemoryPaymentLedger.id(key);
    if (this.records.get(id)?.settlement === null) this.records.delete(id);
  }

  markSettled(key: NonceKey, settlement: string): void {
    const record = this.records.get(MemoryPaymentLedger.id(key));
    if (record) record.settlement = settlement;
  }

  prune(nowSeconds: number): number {
    const now = BigInt(Math.floor(nowSeconds));
    let removed = 0;
    for (const [id, record] of this.records) {
      if (record.validBefore < now) {
        this.records.delete(id);
        removed += 1;
      }
    }
    return removed;
  }

  lookup(key: NonceKey): NonceRecord | undefined {
    const record = this.records.get(MemoryPaymentLedger.id(key));
    return record ? { ...record } : undefined;
  }

  /** How many nonces are held. */
  get size(): number {
    return this.records.size;
  }
}
