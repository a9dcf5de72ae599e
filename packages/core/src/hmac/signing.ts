/**
 * Spec 5.2, signing of Auto mutations: HMAC-SHA256 over timestamp + METHOD + path + body, hex
 * encoded, with a 30 second window. Uses Web Crypto so it runs unchanged in Node, browsers and
 * workers. Comparison is constant-time over bytes.
 */

/** How far (in seconds) a request's x-svc-timestamp may be from the server's clock, either way. */
export const HMAC_MAX_DRIFT_SECONDS = 30;

/** The parts of a request that its HMAC signature covers. */
export interface SigningParts {
  /** Unix time in seconds, exactly as sent in x-svc-timestamp. */
  timestamp: string;
  /** HTTP method; uppercased here. */
  method: string;
  /** Path inside /v2/auto, such as /queries or /queries/{queryId}/cancel. */
  path: string;
  /** The exact JSON text sent, or empty/undefined when there is no body. */
  body?: string;
}

const encoder = new TextEncoder();

/** The text that is signed: timestamp, uppercased method, path and body, concatenated without separators. */
export function signingPayload(parts: SigningParts): string {
  return `${parts.timestamp}${parts.method.toUpperCase()}${parts.path}${parts.body ?? ''}`;
}

async function hmacSha256(secret: string, payload: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(payload)));
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

function fromHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Compares two byte strings in time that depends only on their length. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

/** The lowercase hex signature of a request. */
export async function signRequest(secret: string, parts: SigningParts): Promise<string> {
  return toHex(await hmacSha256(secret, signingPayload(parts)));
}

/** Why a signature check failed. */
export type SignatureFailure = 'missing-headers' | 'invalid-timestamp' | 'timestamp-drift' | 'invalid-signature';

/** The result of {@link verifyRequestSignature}: ok, or the failure and a message for the 401 response. */
export type SignatureCheck = { ok: true } | { ok: false; reason: SignatureFailure; message: string };

/** A request to verify: the caller's signing secret, the signature headers as received and the signed parts. */
export interface SignedRequest {
  secret: string;
  /** Value of x-svc-timestamp, if sent. */
  timestamp: string | undefined;
  /** Value of x-svc-signature, if sent. */
  signature: string | undefined;
  method: string;
  path: string;
  body?: string;
  /** Server time in seconds; defaults to the clock. */
  nowSeconds?: number;
}

/** Verifies a signed request. Every failure is a 401 for the host; the reason is for its message. */
export async function verifyRequestSignature(request: SignedRequest): Promise<SignatureCheck> {
  const { timestamp, signature } = request;
  if (timestamp === undefined || timestamp === '' || signature === undefined || signature === '') {
    return { ok: false, reason: 'missing-headers', message: 'this request must be signed: send x-svc-timestamp and x-svc-signature' };
  }
  if (!/^[0-9]{1,12}$/.test(timestamp)) {
    return { ok: false, reason: 'invalid-timestamp', message: 'x-svc-timestamp must be Unix time in whole seconds' };
  }
  const now = request.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > HMAC_MAX_DRIFT_SECONDS) {
    return {
      ok: false,
      reason: 'timestamp-drift',
      message: `x-svc-timestamp is more than ${HMAC_MAX_DRIFT_SECONDS} s away from the server time`,
    };
  }
  const presented = fromHex(signature);
  const expected = await hmacSha256(request.secret, signingPayload({ ...request, timestamp }));
  if (presented === undefined || !constantTimeEqual(presented, expected)) {
    return { ok: false, reason: 'invalid-signature', message: 'x-svc-signature does not match the request' };
  }
  return { ok: true };
}
