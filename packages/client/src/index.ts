/**
 * @eql/client: a typed client of the EQL host (docs/http-api.md). Requests and answers are typed from
 * the host's OpenAPI document (generated into `generated/openapi.ts`); mutations are signed per spec 5.2;
 * the payment model's routes are paid through the official x402 client; notifications are an async
 * iterator that resumes after reconnects; 429s are waited out as `retry-after` says.
 *
 * @packageDocumentation
 */
export { createEqlClient, type EqlClient, type EqlClientOptions, type PaidRoutes, type QueryParameters, type QueryRequest, type ResponseBody } from './eql-client.js';
export { EqlApiError, EqlClientError, type HostErrorBody } from './errors.js';
export { createTransport, routePath, type RequestFetch, type TransportOptions } from './host-fetch.js';
export { followNotifications, type Notification, type StreamContext, type StreamEvent, type StreamOptions } from './notification-stream.js';
export { signatureHeaders, type RequestToSign, type SigningSecret } from './request-signing.js';
export { fetchRetrying429, retryAfterMs, retryAfterSeconds, sleep, type RetryContext, type RetryPolicy, type Sleep } from './retry-after.js';
export type { components, operations, paths } from './generated/openapi.js';
