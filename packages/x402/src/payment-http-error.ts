/**
 * An error with the HTTP status and the stable snake_case code to answer with (docs/x402.md lists the
 * codes): thrown by the gates of `@eql/x402/fastify`, answered by the host's error handler as
 * `{success: false, error: {code, message}}`, or by Fastify's default handler with its status.
 */
export class PaymentHttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PaymentHttpError';
  }
}
