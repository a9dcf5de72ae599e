/**
 * Response schemas of errors, shared by every route: the host's error body (docs/http-api.md), and on
 * 402 the x402 v1 body of the payment model (docs/x402.md), whose `error` is a code string.
 */

const errorBody = {
  type: 'object',
  properties: {
    success: { type: 'boolean', const: false },
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
      required: ['code', 'message'],
    },
  },
  required: ['success', 'error'],
} as const;

const paymentRequiredBody = {
  type: 'object',
  additionalProperties: true,
  description: 'Payment required: the x402 v1 body (the v2 requirements are in the PAYMENT-REQUIRED header)',
  properties: {
    success: { type: 'boolean', const: false },
    x402Version: { type: 'integer', const: 1 },
    error: { type: 'string' },
    message: { type: 'string' },
    accepts: { type: 'array', items: { type: 'object', additionalProperties: true } },
  },
  required: ['x402Version', 'error', 'accepts'],
} as const;

/** The error responses of a route, by status. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, status === 402 ? paymentRequiredBody : { ...errorBody, description: `Error ${status}` }]));
