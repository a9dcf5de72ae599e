import ipaddr from 'ipaddr.js';

/**
 * Which hosts a webhook may name. Only public unicast addresses and public names pass; loopback,
 * private, link-local, carrier-grade NAT, unique-local, multicast, reserved and other special ranges
 * are refused, and so are names that can only resolve inside a network (localhost, *.local, ...).
 * This is the literal check; the sender resolves names and checks every address again at send time.
 */

/**
 * The verdict of {@link judgeHost}: allowed as a public address or name, or refused with the address range or
 * the reason.
 */
export type HostVerdict =
  | { allowed: true; kind: 'public-address' | 'public-name' }
  | { allowed: false; kind: 'address'; range: string }
  | { allowed: false; kind: 'name'; reason: string };

const INTERNAL_NAME_SUFFIXES = ['.localhost', '.local', '.internal', '.intranet', '.lan', '.home.arpa', '.corp', '.private'];

/**
 * Classifies an IP address literal (IPv4 or IPv6); undefined when it is not one. IPv6 forms that carry
 * an IPv4 address are judged by what they carry or refused outright: IPv4-mapped (`::ffff:a.b.c.d`)
 * is the IPv4 address; IPv4-compatible (`::a.b.c.d`, deprecated) and the rest of `::/8` are `reserved`
 * ranges of their own; ISATAP interface ids (`…:0:5efe:a.b.c.d`) take the range of their IPv4 when that
 * is not public; NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), SIIT, 6to4 and Teredo are special ranges
 * already, so never `unicast`.
 */
export function addressRange(address: string): string | undefined {
  const literal = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Names (the common case) are neither dotted digits nor contain a colon: skip the parser.
  if (!literal.includes(':') && !/^[0-9.]+$/.test(literal)) return undefined;
  if (!ipaddr.isValid(literal)) return undefined;
  const parsed = ipaddr.parse(literal);
  if (parsed.kind() === 'ipv4') return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  const range = v6.range();
  if (range !== 'unicast') return range;
  const parts = v6.parts;
  // ::/8 is reserved by the IETF (RFC 4291); its unicast-looking members are IPv4-compatible forms.
  if ((parts[0] ?? 0) <= 0x00ff) return parts.slice(0, 6).every((part) => part === 0) ? 'ipv4Compatible' : 'reserved';
  // ISATAP (RFC 5214): the interface id 0000:5efe or 0200:5efe carries an IPv4 address.
  if (((parts[4] ?? 0) & 0xfdff) === 0 && parts[5] === 0x5efe) {
    const embedded = ipaddr.fromByteArray([(parts[6] ?? 0) >> 8, (parts[6] ?? 0) & 0xff, (parts[7] ?? 0) >> 8, (parts[7] ?? 0) & 0xff]).range();
    if (embedded !== 'unicast') return embedded;
  }
  return range;
}

/** Whether an IP address literal is public unicast (false for names and for every special range). */
export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}

/**
 * Judges the host part of a URL as the WHATWG URL parser leaves it (lowercase, IPv4 forms such as
 * `0x7f.1` or `2130706433` already rewritten to dotted quads, IPv6 in brackets).
 */
export function judgeHost(hostname: string): HostVerdict {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const range = addressRange(host);
  if (range !== undefined) {
    return range === 'unicast' ? { allowed: true, kind: 'public-address' } : { allowed: false, kind: 'address', range };
  }
  if (host === '' ) return { allowed: false, kind: 'name', reason: 'has no host' };
  if (host === 'localhost' || INTERNAL_NAME_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return { allowed: false, kind: 'name', reason: 'names a host that only resolves inside a network' };
  }
  if (!host.includes('.')) {
    return { allowed: false, kind: 'name', reason: 'is a single-label name that only resolves inside a network' };
  }
  return { allowed: true, kind: 'public-name' };
}

/** The verdict of {@link judgeWebhookUrl}: the parsed URL (`insecure` for plain http), or an error code and message. */
export type UrlVerdict =
  | { ok: true; url: URL; insecure: boolean }
  | { ok: false; code: 'webhook-url-invalid' | 'webhook-url-scheme' | 'webhook-url-credentials' | 'webhook-private-host'; message: string };

/** Checks a webhook URL: absolute http(s), no embedded credentials, a host allowed by {@link judgeHost}. */
export function judgeWebhookUrl(text: string, options: { allowPrivate?: boolean } = {}): UrlVerdict {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, code: 'webhook-url-invalid', message: 'is not an absolute URL such as https://example.com/hook' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, code: 'webhook-url-scheme', message: `must use http or https, not ${url.protocol.replace(/:$/, '')}` };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      code: 'webhook-url-credentials',
      message: 'must not carry credentials in the URL; send them in params.headers instead',
    };
  }
  if (!options.allowPrivate) {
    const verdict = judgeHost(url.hostname);
    if (!verdict.allowed) {
      const why = verdict.kind === 'address' ? `is a ${describeRange(verdict.range)} address` : verdict.reason;
      return { ok: false, code: 'webhook-private-host', message: `host ${url.hostname} ${why}; webhooks must reach a public host` };
    }
  }
  return { ok: true, url, insecure: url.protocol === 'http:' };
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local (private)',
  carrierGradeNat: 'carrier-grade NAT',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  reserved: 'reserved',
  ipv4Compatible: 'IPv4-compatible IPv6 (deprecated)',
};

function describeRange(range: string): string {
  return RANGE_WORDS[range] ?? `special-purpose (${range})`;
}
