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
  /** Most payers (and, apart, addresses) followed at once; the oldest is forgotten beyond it. Default 10000. */
  maxKeys?: number;
}

/** The bounds a verifier uses when given none. */
export const DEFAULT_PAYMENT_RATE_LIMITS: Readonly<Required<PaymentRateLimits>> = { perPayer: 20, perAddress: 60, windowMs: 60_000, maxKeys: 10_000 };

/** A slot for one signature check, or why there is none. */
export type SignatureSlot =
  | {
      ok: true;
      /**
       * Says how the check went: a valid signature gives the slot back (it does not count); a refused
       * one keeps it, and marks the client address as one that sent a bad signature.
       */
      done(valid: boolean): void;
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

interface Window {
  /** Checks counted: refused ones and those in flight. */
  count: number;
  /** Refused checks (an address with some is suspect: the payer bound applies to it). */
  refused: number;
  /** Epoch ms when the window ends and the count starts again. */
  resetAt: number;
}

/** Fixed windows per key, as `@fastify/rate-limit` counts: the first hit opens a window of `windowMs`. */
class Windows {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys: number,
  ) {}

  /** The open window of `key`, opened now when there is none (or the last one ended). */
  of(key: string, now: number): Window {
    const current = this.windows.get(key);
    if (current && current.resetAt > now) return current;
    if (current) this.windows.delete(key);
    if (this.windows.size >= this.maxKeys) this.evict(now);
    const opened = { count: 0, refused: 0, resetAt: now + this.windowMs };
    this.windows.set(key, opened);
    return opened;
  }

  /** Drops ended windows; when none has ended, the oldest one (maps keep insertion order). */
  private evict(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    if (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next();
      if (!oldest.done) this.windows.delete(oldest.value);
    }
  }
}

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
 */
export class PaymentRateLimiter {
  private readonly perPayer: number;
  private readonly perAddress: number;
  private readonly payers: Windows;
  private readonly addresses: Windows;

  constructor(
    limits: PaymentRateLimits = {},
    private readonly now: () => number = () => Date.now(),
  ) {
    const { perPayer, perAddress, windowMs, maxKeys } = { ...DEFAULT_PAYMENT_RATE_LIMITS, ...definedOnly(limits) };
    for (const [name, value] of Object.entries({ perPayer, perAddress })) {
      if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`the x402 rate limit ${name} must be a whole number of checks (0 for none), not ${value}`);
    }
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0) throw new RangeError(`the x402 rate-limit window must be a positive number of milliseconds, not ${windowMs}`);
    if (!Number.isSafeInteger(maxKeys) || maxKeys <= 0) throw new RangeError(`maxKeys must be a positive whole number, not ${maxKeys}`);
    this.perPayer = perPayer;
    this.perAddress = perAddress;
    this.payers = new Windows(windowMs, maxKeys);
    this.addresses = new Windows(windowMs, maxKeys);
  }

  /**
   * Takes a slot for checking a signature of `payer` (compared case-insensitively) sent from
   * `address` (none: the payer's bound always applies); refused when a bound is reached.
   */
  take(payer: string, address?: string): SignatureSlot {
    const now = this.now();
    const known = address !== undefined && address !== '';
    const byAddress = known ? this.addresses.of(address, now) : undefined;
    if (byAddress && this.perAddress > 0 && byAddress.count >= this.perAddress) return refusal('address', this.perAddress, byAddress, now);
    const byPayer = this.perPayer > 0 ? this.payers.of(payer.toLowerCase(), now) : undefined;
    const suspect = byAddress === undefined || byAddress.refused > 0;
    if (byPayer && suspect && byPayer.count >= this.perPayer) return refusal('payer', this.perPayer, byPayer, now);
    const held = [byAddress, byPayer].filter((window): window is Window => window !== undefined);
    for (const window of held) window.count += 1;
    let finished = false;
    return {
      ok: true,
      done: (valid) => {
        if (finished) return;
        finished = true;
        // A window that ended meanwhile was replaced: changing the old object changes nothing.
        if (valid) for (const window of held) window.count = Math.max(0, window.count - 1);
        else if (byAddress) byAddress.refused += 1;
      },
    };
  }
}

function refusal(limit: 'payer' | 'address', max: number, window: Window, now: number): SignatureSlot {
  return { ok: false, limit, max, retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - now) / 1000)) };
}

function definedOnly(limits: PaymentRateLimits): PaymentRateLimits {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}
