import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Secrets at rest: AES-256-GCM with a 32-byte key (from config, or generated once into a file of the
 * data directory readable by its owner only). The stored form is `v1:<iv>:<tag>:<ciphertext>` in base64.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** A box over a 32-byte key written as 64 hex digits or base64; throws when it is not 32 bytes. */
  static fromKey(text: string): SecretBox {
    const trimmed = text.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
    if (key.length !== 32) throw new Error('the secret key must be 32 bytes, as 64 hex digits or base64');
    return new SecretBox(key);
  }

  /** The key of `path`, generated (mode 0600) when the file does not exist. */
  static fromFile(path: string): SecretBox {
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600 });
    }
    chmodSync(path, 0o600);
    return SecretBox.fromKey(readFileSync(path, 'utf8'));
  }

  /**
   * A box of its own for one purpose (HKDF-SHA-256 of this key, `purpose` as its info): every host with
   * the same secret key derives the same one, and what it seals never opens in this box or another purpose's.
   */
  derive(purpose: string): SecretBox {
    return new SecretBox(Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), purpose, 32)));
  }

  /** Encrypts a text with a fresh random IV: `v1:<iv>:<tag>:<ciphertext>`, in base64. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${data.toString('base64')}`;
  }

  /** Decrypts what {@link SecretBox.seal} wrote; throws when it is malformed, altered or sealed with another key. */
  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) throw new Error('unreadable sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** SHA-256 hex of a key: keys are long random strings, so a fast hash is enough and lookups stay indexable. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings (different lengths compare false without throwing). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

/** A new API key and its HMAC secret: `eql_<40 base62>` and 64 hex digits. */
export function newApiKey(): { key: string; hmacSecret: string } {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let key = 'eql_';
  while (key.length < 44) {
    // Rejection sampling: only bytes below 248 (4 x 62) map evenly onto the alphabet.
    for (const byte of randomBytes(48)) if (byte < 248 && key.length < 44) key += alphabet[byte % 62];
  }
  return { key, hmacSecret: randomBytes(32).toString('hex') };
}
