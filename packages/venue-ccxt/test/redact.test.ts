import { describe, expect, it } from 'vitest';
import { redactor } from '../src/redact.js';
import { describeCcxtError } from '../src/ccxt-errors.js';

// Issue 13: exchange error texts were garbled by the redaction of short submitted values
// (`Networ[redacted]Error`): only whole secret values go, never fragments of ordinary words.
describe('redactor', () => {
  it('leaves words alone when the submitted values are short', () => {
    const text = 'NetworkError: binance GET https://api.binance.com/api/v3/account failed: code 1234, a timeout';
    const redact = redactor(['a', 'Net', 'k', 'work', '1234']);
    expect(redact(text)).toBe('NetworkError: binance GET https://api.binance.com/api/v3/account failed: code [redacted], a timeout');
    expect(describeCcxtError(new Error('NetworkError: request failed'), redactor(['Net', 'k', 'Error']))).toBe('Error: NetworkError: request failed');
  });

  it('removes long secrets anywhere, in lowercase and without 0x, and URL query strings', () => {
    const key = '0xAbCdEf0123456789AbCdEf0123456789AbCdEf0123456789AbCdEf0123456789';
    const redact = redactor([key, 'apiKeyCanary0123456789']);
    const text = `invalid signature for ${key.toLowerCase()} (${key.slice(2)}) apikey=apiKeyCanary0123456789 at https://x.example/v1?signature=abc&key=apiKeyCanary0123456789`;
    const out = redact(text);
    expect(out).not.toContain(key.slice(2).toLowerCase());
    expect(out).not.toContain(key.slice(2));
    expect(out).not.toContain('apiKeyCanary0123456789');
    expect(out).toContain('https://x.example/v1?…');
  });
});
