/**
 * Every error code the host answers with, and its HTTP status: the one catalogue `ApiError` is typed by
 * (docs/http-api.md lists the same, by status; a test checks they agree). A code always comes with its
 * status: a client can act on either. The payment model's own 402 bodies (x402's codes) are not here.
 */
export const ERROR_CODES = {
  // 400: the request cannot be taken as sent
  unknown_parameter: 400,
  invalid_json: 400,
  invalid_syntax: 400,
  invalid_request: 400,
  invalid_query: 400,
  invalid_cursor: 400,
  invalid_credentials: 400,
  exchange_not_supported: 400,
  invalid_exchange: 400,
  invalid_symbol: 400,
  invalid_last_event_id: 400,
  invalid_time: 400,
  invalid_keywords: 400,
  missing_parameter: 400,
  invalid_token: 400,
  invalid_username: 400,
  invalid_items: 400,
  missing_message: 400,
  message_too_long: 400,
  invalid_asset_metadata: 400,
  missing_agent_secret: 400,
  invalid_agent_secret: 400,
  api_key_in_url: 400,
  secret_required: 400,
  bad_request: 400,
  // 401: who is calling is not proven
  missing_api_key: 401,
  invalid_api_key: 401,
  expired_api_key: 401,
  signature_missing_headers: 401,
  signature_invalid_timestamp: 401,
  signature_timestamp_drift: 401,
  signature_invalid_signature: 401,
  signature_replayed: 401,
  signature_unsigned_query: 401,
  metrics_token_required: 401,
  // 402: the payment model asks for a payment
  payment_missing: 402,
  // 403: the caller may not do this
  auto_not_enabled: 403,
  missing_scope: 403,
  x402_demo_payee: 403,
  // 404, 405, 409, 410, 413, 415
  not_found: 404,
  route_not_found: 404,
  account_not_found: 404,
  session_not_found: 404,
  method_not_allowed: 405,
  validate_first: 409,
  check_exchanges_first: 409,
  query_not_active: 409,
  query_still_active: 409,
  draft_converted: 409,
  draft_invalid: 409,
  idempotency_key_reused: 409,
  exchange_built_in: 409,
  query_deleted: 410,
  body_too_large: 413,
  unsupported_media_type: 415,
  // 422: understood, and not possible here
  exchange_not_connected: 422,
  too_many_active_queries: 422,
  exchange_credentials_rejected: 422,
  action_not_allowed: 422,
  unserved_symbol: 422,
  unserved_timeframe: 422,
  lookback_exceeds_lifetime: 422,
  // 429: too much, for now
  rate_limited: 429,
  daily_quota_exceeded: 429,
  monthly_quota_exceeded: 429,
  too_many_streams: 429,
  // 5xx: the host, or what it depends on, failed
  internal_error: 500,
  venue_unreachable: 502,
  llm_upstream_error: 502,
  llm_empty_reply: 502,
  database_unavailable: 503,
  database_busy: 503,
  console_not_built: 503,
  llm_timeout: 504,
} as const satisfies Record<string, number>;

/** A code of the catalogue. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether `code` is in the catalogue (a code built from parts: `signature_<reason>`, a validation code). */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
