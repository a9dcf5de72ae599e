import { describe, expect, it } from 'vitest';
import { judgeWebhookUrl } from '@eql/core';

describe('webhook URL policy', () => {
  it.each([
    'https://hooks.example.com/eql',
    'http://api.example.org:8080/x?y=1',
    'https://8.8.8.8/hook',
    'https://[2606:4700:4700::1111]/hook',
    // An ISATAP interface id over a public IPv4 address is an ordinary public address.
    'https://[2607:f8b0::5efe:8.8.8.8]/hook',
  ])('allows %s', (url) => {
    expect(judgeWebhookUrl(url).ok).toBe(true);
  });

  it.each([
    ['http://127.0.0.1/x', 'loopback'],
    ['http://127.1/x', 'loopback'],
    ['http://2130706433/x', 'loopback'],
    ['http://0x7f.1/x', 'loopback'],
    ['http://0177.0.0.1/x', 'loopback'],
    ['http://localhost:3000/x', 'only resolves inside a network'],
    ['http://api.localhost/x', 'only resolves inside a network'],
    ['http://printer.local/x', 'only resolves inside a network'],
    ['http://intranet/x', 'single-label'],
    ['http://10.1.2.3/x', 'private'],
    ['http://172.16.0.1/x', 'private'],
    ['http://192.168.1.1/x', 'private'],
    ['http://100.64.0.1/x', 'carrier-grade NAT'],
    ['http://169.254.169.254/latest/meta-data', 'link-local'],
    ['http://0.0.0.0/x', 'unspecified'],
    ['http://[::1]/x', 'loopback'],
    ['http://[::ffff:127.0.0.1]/x', 'loopback'],
    ['http://[::ffff:10.0.0.1]/x', 'private'],
    ['http://[fc00::1]/x', 'unique-local'],
    ['http://[fe80::1]/x', 'link-local'],
    ['http://224.0.0.1/x', 'multicast'],
    // Every IPv6 form that embeds an IPv4 address.
    ['http://[::127.0.0.1]/x', 'IPv4-compatible'],
    ['http://[::10.0.0.1]/x', 'IPv4-compatible'],
    ['http://[::8.8.8.8]/x', 'IPv4-compatible'],
    ['http://[0:0:0:0:0:0:7f00:1]/x', 'IPv4-compatible'],
    ['http://[::ffff:0:127.0.0.1]/x', 'rfc6145'],
    ['http://[64:ff9b::127.0.0.1]/x', 'rfc6052'],
    ['http://[64:ff9b:1::7f00:1]/x', 'rfc6052'],
    ['http://[2002:7f00:1::1]/x', '6to4'],
    ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x', 'teredo'],
    ['http://[2607:f8b0::5efe:10.0.0.1]/x', 'private'],
    ['http://[2607:f8b0::200:5efe:127.0.0.1]/x', 'loopback'],
    ['http://[100::1]/x', 'discard'],
    ['http://[1::1]/x', 'reserved'],
  ])('refuses %s (%s)', (url, words) => {
    const verdict = judgeWebhookUrl(url);
    expect(verdict).toMatchObject({ ok: false, code: 'webhook-private-host' });
    if (!verdict.ok) expect(verdict.message).toContain(words);
  });

  it('refuses other schemes, credentials and non-URLs', () => {
    expect(judgeWebhookUrl('ftp://example.com/x')).toMatchObject({ ok: false, code: 'webhook-url-scheme' });
    expect(judgeWebhookUrl('file:///etc/passwd')).toMatchObject({ ok: false, code: 'webhook-url-scheme' });
    expect(judgeWebhookUrl('https://user:pw@example.com/x')).toMatchObject({ ok: false, code: 'webhook-url-credentials' });
    expect(judgeWebhookUrl('example.com/hook')).toMatchObject({ ok: false, code: 'webhook-url-invalid' });
  });

  it('lets a host opt into private targets', () => {
    expect(judgeWebhookUrl('http://127.0.0.1:9/x', { allowPrivate: true }).ok).toBe(true);
  });

  it('flags plain http as insecure', () => {
    expect(judgeWebhookUrl('http://example.com/x')).toMatchObject({ ok: true, insecure: true });
    expect(judgeWebhookUrl('https://example.com/x')).toMatchObject({ ok: true, insecure: false });
  });
});
