const encoder = new TextEncoder();

/** Base64 HMAC-SHA256 of `payload` keyed by `secret` (a text: its UTF-8 bytes; or the key's bytes) (Web Crypto, so it runs anywhere). */
export async function hmacSha256Base64(secret: string | Uint8Array<ArrayBuffer>, payload: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', typeof secret === 'string' ? encoder.encode(secret) : secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(payload)));
  let binary = '';
  for (const byte of signature) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Hex SHA-256 of a text. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
