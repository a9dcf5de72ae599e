import { FacilitatorTimeoutError, HTTPFacilitatorClient } from '@x402/core/http';
import { SettleError, VerifyError, type PaymentPayload, type PaymentRequirements } from '@x402/core/types';
import type { PaymentPayloadV1 } from './decode-payment.js';
import { accept, refuse, type PaymentResult } from './payment-errors.js';
import type { PaymentRequirementsV1 } from './requirements.js';

/** A payment as a facilitator receives it: the payer's payload and the host's requirements. */
export interface FacilitatorRequest {
  payload: PaymentPayload | PaymentPayloadV1;
  requirements: PaymentRequirements | PaymentRequirementsV1;
}

/** A settled transfer. */
export interface Settlement {
  /** Transaction hash. */
  transaction: string;
  network: string;
  payer?: string;
}

/**
 * An x402 facilitator: checks a payment against the chain (balance, nonce unused, signature, including
 * smart wallets) and settles it. Answers are typed outcomes, never exceptions.
 */
export interface PaymentFacilitator {
  /**
   * Asks whether the payment would settle; accepts with the payer's address when the facilitator gives it,
   * refuses with `payment_rejected`, or with `payment_facilitator_unavailable` when it cannot be reached.
   */
  verify(request: FacilitatorRequest): Promise<PaymentResult<{ payer?: string }>>;
  /**
   * Executes the transfer on chain; accepts with its {@link Settlement} (transaction hash, network, payer),
   * else refuses with `payment_settlement_failed`.
   */
  settle(request: FacilitatorRequest): Promise<PaymentResult<Settlement>>;
}

/** Where a facilitator lives and how long to wait for it. */
export interface HttpFacilitatorOptions {
  url: string;
  /** Per request, response headers and body included (default 10 000 ms). */
  timeoutMs?: number;
}

/** What went wrong, for the host's log (a facilitator's answer may say more than a client should see). */
function causeOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 300)}` : 'unknown error';
}

/** What the client is told about a facilitator that failed. */
function troubleOf(error: unknown): string {
  return error instanceof FacilitatorTimeoutError ? 'did not answer in time' : 'failed or answered unexpectedly';
}

/**
 * The x402 facilitator HTTP API (`POST {url}/verify`, `POST {url}/settle`, JSON `{x402Version,
 * paymentPayload, paymentRequirements}`) through @x402/core's client, which uses the global fetch
 * with a timeout and validates the answers' shape.
 */
export class HttpFacilitator implements PaymentFacilitator {
  private readonly client: HTTPFacilitatorClient;

  constructor(options: HttpFacilitatorOptions) {
    this.client = new HTTPFacilitatorClient({ url: options.url, timeoutMs: options.timeoutMs ?? 10_000 });
  }

  async verify(request: FacilitatorRequest): Promise<PaymentResult<{ payer?: string }>> {
    try {
      const answer = await this.client.verify(request.payload as PaymentPayload, request.requirements as PaymentRequirements);
      if (!answer.isValid) {
        const detail = answer.invalidMessage ? `: ${answer.invalidMessage}` : '';
        return refuse('payment_rejected', `the facilitator refused the payment: ${answer.invalidReason ?? 'no reason given'}${detail}`);
      }
      return accept(answer.payer === undefined ? {} : { payer: answer.payer });
    } catch (error) {
      if (error instanceof VerifyError) return refuse('payment_rejected', `the facilitator refused the payment: ${error.message}`);
      return refuse('payment_facilitator_unavailable', `the payment facilitator ${troubleOf(error)}; nothing was charged, retry later`, causeOf(error));
    }
  }

  async settle(request: FacilitatorRequest): Promise<PaymentResult<Settlement>> {
    try {
      const answer = await this.client.settle(request.payload as PaymentPayload, request.requirements as PaymentRequirements);
      if (!answer.success) {
        const detail = answer.errorMessage ? `: ${answer.errorMessage}` : '';
        return refuse('payment_settlement_failed', `the facilitator did not settle the payment: ${answer.errorReason ?? 'no reason given'}${detail}`);
      }
      if (answer.transaction === '') return refuse('payment_settlement_failed', 'the facilitator reported success without a transaction');
      return accept({ transaction: answer.transaction, network: answer.network, ...(answer.payer === undefined ? {} : { payer: answer.payer }) });
    } catch (error) {
      if (error instanceof SettleError) return refuse('payment_settlement_failed', `the facilitator did not settle the payment: ${error.message}`);
      return refuse('payment_settlement_failed', `the payment facilitator ${troubleOf(error)} while settling; nothing was charged`, causeOf(error));
    }
  }
}
