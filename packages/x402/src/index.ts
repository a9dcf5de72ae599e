/**
 * The x402 payment model of the host (spec 4.5, 5.3; docs/x402.md): configuration and prices,
 * requirements and headers of both protocol versions, decoding and local verification of payments,
 * the nonce ledger, the facilitator client, and `PaymentVerifier`, the whole protocol for any server.
 * The Fastify gates and plugin are in `@eql/x402/fastify`; nothing here imports a web framework.
 *
 * @packageDocumentation
 */
export { AgentSecrets, agentId, AGENT_SECRET_HEADER, type AgentCheck, type AgentIdentity } from './agent-secrets.js';
export { decodePayment, MAX_PAYMENT_HEADER_LENGTH, paymentHeaderOf, type DecodedPayment, type PaymentPayloadV1, type TransferAuthorization } from './decode-payment.js';
export { HttpFacilitator, type FacilitatorRequest, type HttpFacilitatorOptions, type PaymentFacilitator, type Settlement } from './facilitator-client.js';
export {
  agentSecretsFromEnv,
  ATOMIC_UNITS_PER_CREDIT,
  createPaymentConfig,
  DEFAULT_PAYMENT_NETWORK,
  formatUsd,
  MIN_AGENT_SECRET_LENGTH,
  parsePaymentNetwork,
  paymentConfigFromEnv,
  priceAtomic,
  settlementProblem,
  USDC,
  type PaymentConfig,
  type PaymentConfigInput,
  type PaymentNetwork,
  type PaymentNetworkV1,
  type UsdcDeployment,
} from './payment-config.js';
export { accept, refuse, type PaymentErrorCode, type PaymentFailure, type PaymentResult } from './payment-errors.js';
export { PaymentHttpError } from './payment-http-error.js';
export {
  PaymentVerifier,
  type AcceptedPayment,
  type PaidRequest,
  type PaymentCheck,
  type PaymentLog,
  type PaymentResponse,
  type PaymentVerifierOptions,
  type RequestPayment,
} from './payment-verifier.js';
export { encodePaymentReceipt, encodePaymentRequired, EXPOSED_PAYMENT_HEADERS, mergeExposedHeaders, PAYMENT_HEADERS, type PaymentReceipt } from './payment-headers.js';
export { DEFAULT_PAYMENT_RATE_LIMITS, PaymentRateLimiter, type PaymentRateLimits, type SignatureSlot } from './payment-rate-limiter.js';
export { MemoryWindowCounter, type MemoryWindowCounterOptions, type WindowCount, type WindowCounter } from './window-counter.js';
export { canonicalKey, MemoryPaymentLedger, type NonceClaim, type NonceKey, type NonceRecord, type PaymentLedger } from './payment-ledger.js';
export {
  paymentRequiredBody,
  paymentRequiredV2,
  requirementsV1,
  requirementsV2,
  RESOURCE_MIME_TYPE,
  type Charge,
  type PaymentRequiredBody,
  type PaymentRequirementsV1,
} from './requirements.js';
export { SqlitePaymentLedger } from './sqlite-payment-ledger.js';
export {
  checkPaymentTerms,
  checkSignatureForm,
  SECP256K1_N,
  SETTLEMENT_MARGIN_SECONDS,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  verifyPayment,
  verifyPaymentSignature,
} from './verify-payment.js';
