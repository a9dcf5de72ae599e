import { MemoryWindowCounter, type WindowCount, type WindowCounter } from './window-counter.js';

/**
 * Bounds on signature checks, the one expensive step of verifying a payment (an EIP-712 recovery,
 * about 3.5 ms of CPU): per payer (the `from` the payment claims, not yet verified) and per client
 * address. `0` turns a bound off. docs/x402.md, "Rate limits", says why these numbers.
 */
export interface PaymentRateLimits {
  /** Refused signature checks per claimed payer (`authorization.from`) per window; default 20. */
  perPayer?: number;
  /** Refused signature checks per client address per window; default 60. */
  perAddress?: number;
  /** The window in milliseconds; default 60000 (a minute). */
  windowMs?: number;
  /** Most payers (and, apart, addresses) followed at once by the default counter, in memory; the oldest is forgotten beyond it. Default 10000. */
  maxKeys?: number;
  /**
   * Where the windows are counted: default in this process's memory ({@link MemoryWindowCounter}, a
   * bound per process); a counter shared by the processes of a host (in its database) makes the
   * bounds hold for all of them together. Its keys start `payer:`, `address:` and `refused:`.
   */
  counter?: WindowCounter;
}

/** The bounds a verifier uses when given none. */
export const DEFAULT_PAYMENT_RATE_LIMITS: Readonly<Required<Omit<PaymentRateLimits, 'counter'>>> = { perPayer: 20, perAddress: 60, windowMs: 60_000, maxKeys: 10_000 };

/** A slot for one signature check, or why there is none. */
export type SignatureSlot =
  | {
      ok: true;
      /**
       * Says how the check went: a valid signature gives the slot back (it does not count); a refused
       * one keeps it, and marks the client address as one that sent a bad signature.
       */
      done(valid: boolean): Promise<void>;
    }
  | {
      ok: false;
      /** Which bound refused. */
      limit: 'payer' | 'address';
      /** That bound. */
      max: number;
      /** Seconds until its window ends (at least 1). */
      retryAfterSeconds: number;
    };

/**
 * Counts signature checks per payer and per client address, so that a flood of payments with bad
 * signatures costs a bounded number of recoveries per window and the rest are refused (429) before
 * any recovery. A check takes a slot before the recovery and gives it back when the signature is
 * valid: the bounds count refused signatures (and checks in flight), so a paying client never meets
 * them however often it pays. One limiter is shared by every paid route of a host.
 *
 * The payer is the `from` a payment claims, which anyone can write: so that forged payments cannot
 * lock a payer out, its bound refuses only requests from a client address that has itself sent a
 * refused signature in its window (or whose address is unknown). A flood from one address is cut at
 * `perPayer` recoveries for one payer and `perAddress` in all; a payer's own requests from another
 * address still go through.
 *
 * The windows are fixed, kept by a {@link WindowCounter} (`limits.counter`; default in memory): a slot
 * is a hit of the payer's and of the address's window, taken back when the signature is valid or a
 * bound refused; a refused signature is a hit of the address's `refused` window. A slot given back
 * after its window ended is taken from the next window (a check straddling the boundary), which lets
 * at most one more check through there.
 */
export class PaymentRateLimiter {
  private readonly perPayer: number;
  private readonly perAddress: number;
  private readonly windowMs: number;
  private readonly counter: WindowCounter;

  constructor(limits: PaymentRateLimits = {}, now: () => number = () => Date.now()) {
    const { perPayer, perAddress, windowMs, maxKeys } = { ...DEFAULT_PAYMENT_RATE_LIMITS, ...definedOnly(limits) };
    for (const [name, value] of Object.entries({ perPayer, perAddress })) {
      if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`the x402 rate limit ${name} must be a whole number of checks (0 for none), not ${value}`);
    }
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0) throw new RangeError(`the x402 rate-limit window must be a positive number of milliseconds, not ${windowMs}`);
    if (!Number.isSafeInteger(maxKeys) || maxKeys <= 0) throw new RangeError(`maxKeys must be a positive whole number, not ${maxKeys}`);
    this.perPayer = perPayer;
    this.perAddress = perAddress;
    this.windowMs = windowMs;
    this.counter = limits.counter ?? new MemoryWindowCounter({ maxKeys, now });
  }

  /**
   * Takes a slot for checking a signature of `payer` (compared case-insensitively) sent from
   * `address` (none: the payer's bound always applies); refused when a bound is reached.
   */
  async take(payer: string, address?: string): Promise<SignatureSlot> {
    const { counter, windowMs } = this;
    const known = address !== undefined && address !== '';
    const addressKey = known && this.perAddress > 0 ? `address:${address}` : undefined;
    const payerKey = this.perPayer > 0 ? `payer:${payer.toLowerCase()}` : undefined;
    // Refused signatures of the address: they make it suspect, and the payer bound applies to it.
    const refusedKey = known && payerKey ? `refused:${address}` : undefined;
    const [byAddress, byPayer, refused] = await Promise.all([
      addressKey ? counter.hit(addressKey, windowMs) : undefined,
      payerKey ? counter.hit(payerKey, windowMs) : undefined,
      refusedKey ? counter.peek(refusedKey) : undefined,
    ]);
    const held = [addressKey, payerKey].filter((key): key is string => key !== undefined);
    const giveBack = async (): Promise<void> => {
      await Promise.all(held.map((key) => Promise.resolve(counter.unhit(key))));
    };
    if (byAddress && byAddress.count > this.perAddress) {
      await giveBack();
      return refusal('address', this.perAddress, byAddress);
    }
    const suspect = !known || (refused?.count ?? 0) > 0;
    if (byPayer && suspect && byPayer.count > this.perPayer) {
      await giveBack();
      return refusal('payer', this.perPayer, byPayer);
    }
    let finished = false;
    return {
      ok: true,
      done: async (valid) => {
        if (finished) return;
        finished = true;
        if (valid) await giveBack();
        else if (refusedKey) await counter.hit(refusedKey, windowMs);
      },
    };
  }
}

function refusal(limit: 'payer' | 'address', max: number, window: WindowCount): SignatureSlot {
  return { ok: false, limit, max, retryAfterSeconds: Math.max(1, Math.ceil(window.ttlMs / 1000)) };
}

function definedOnly(limits: PaymentRateLimits): Omit<PaymentRateLimits, 'counter'> {
  return Object.fromEntries(Object.entries(limits).filter(([name, value]) => value !== undefined && name !== 'counter'));
}
