/**
 * The two ways a call of the client fails: the host answered with an error (`EqlApiError`, its status and
 * the structured body every error of the host has), or the client refused before sending (`EqlClientError`:
 * a request that must be signed without a secret, a stream that ended where it may not, a redirect it
 * would not follow).
 */

/** The error body of the host: `{success: false, error: {code, message, details?}}`. */
export interface HostErrorBody {
  success: false;
  error: { code: string; message: string; details?: unknown };
}

/** An answer of the host outside 2xx: its status, code, message and details, as the host sent them. */
export class EqlApiError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The host's error code (`invalid_query`, `rate_limited`, ...), or `http_<status>` when the body had none. */
  readonly code: string;
  /** The host's `details`, when it sent some (validation errors, the canonical string of a signature mismatch, ...). */
  readonly details: unknown;
  /** Seconds the host asked to wait (`retry-after`), on a 429 or a 503 that said so. */
  readonly retryAfterSeconds: number | undefined;

  /** An error from the status, the host's error body (when it sent one) and the `retry-after` it named. */
  constructor(status: number, body: unknown, retryAfterSeconds?: number) {
    const error = hostError(body);
    super(error ? `${error.code}: ${error.message}` : `the host answered ${status}`);
    this.name = 'EqlApiError';
    this.status = status;
    this.code = error?.code ?? `http_${status}`;
    this.details = error?.details;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A request the client refused to send (nothing reached the host), a stream it could not go on with, or a redirect it would not follow. */
export class EqlClientError extends Error {
  /** A short code: `signature_required`, `stream_closed`, `redirect_refused`, ... */
  readonly code: string;

  /** An error with its code and message. */
  constructor(code: string, message: string) {
    super(message);
    this.name = 'EqlClientError';
    this.code = code;
  }
}

/** The `error` of a host error body, or undefined when the body is not one (a 402's x402 body, a proxy's page). */
function hostError(body: unknown): HostErrorBody['error'] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') {
    const { code, message, details } = error as { code: string; message?: unknown; details?: unknown };
    return { code, message: typeof message === 'string' ? message : code, details };
  }
  if (typeof error === 'string') {
    const message = (body as { message?: unknown }).message;
    return { code: error, message: typeof message === 'string' ? message : error };
  }
  return undefined;
}
