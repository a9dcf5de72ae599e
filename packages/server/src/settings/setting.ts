import { resolve } from 'node:path';

/** How a setting's text is read; each kind checks its text and says what it expects when it is wrong. */
export type SettingKind =
  | { type: 'integer'; min: number; max?: number }
  | { type: 'number'; min?: number; exclusiveMin?: number; max?: number }
  | { type: 'flag' }
  | { type: 'choice'; values: readonly string[] }
  | { type: 'text'; pattern?: RegExp; patternSays?: string; minLength?: number }
  | { type: 'path' }
  | { type: 'url'; protocols: readonly string[] }
  | { type: 'list' }
  /** A span of time as Prometheus writes it (`30d`, `12h`, `90m`, `45s`, `500ms`, `2w`), in ms; `off` (or `0`) when `off` is allowed: keep for ever. */
  | { type: 'duration'; minMs: number; off?: boolean }
  /** Read by its own parser (its message names the variable), such as a proxy list or a database URL. */
  | { type: 'custom'; parse: (text: string) => unknown; says: string };

/** One environment variable of the host: what it is, its bounds, its default, whether it is a secret. */
export interface Setting {
  name: string;
  /**
   * Where `configFromEnv` puts the value in the host's configuration, as a dotted path (`metrics.port`);
   * none for a setting read with others by its own code (the plans, the bus's credentials, the model's).
   */
  config?: string;
  kind: SettingKind;
  /** The default as people read it (`8787`, `none`, `./.eql-data`). */
  defaultText: string;
  /** Never shown (masked in `eql config print`); may be given in a file instead (`<name>_FILE`) unless `file` is false. */
  secret?: boolean;
  /** With `secret`: false when the setting has a file variant of its own. */
  file?: boolean;
  /** Shown in place of a secret's value by `eql config print` (default `***`): a URL without its password, say. */
  mask?: (value: string) => string;
  /** The section of docs/configuration.md. */
  group: string;
  description: string;
}

/** Thrown with every problem of a configuration, each naming its variable. */
export class ConfigurationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('; '));
    this.name = 'ConfigurationError';
  }
}

const TRUE_WORDS = /^(1|true|yes|on)$/i;
const FALSE_WORDS = /^(0|false|no|off)$/i;

/** A short quote of a value in a message (a long or multi-line value is cut, never a secret: secrets are not quoted). */
function quoted(text: string): string {
  const flat = [...text].map((character) => (character.charCodeAt(0) < 32 || character.charCodeAt(0) === 127 ? ' ' : character)).join('');
  return `"${flat.length > 40 ? `${flat.slice(0, 40)}…` : flat}"`;
}

/** What a kind expects, for messages and the documentation. */
export function expectation(kind: SettingKind): string {
  switch (kind.type) {
    case 'integer':
      return kind.max === undefined ? `a whole number${kind.min > 0 ? ` of at least ${kind.min}` : ''}` : `a whole number from ${kind.min} to ${kind.max}`;
    case 'number':
      return `a number${kind.exclusiveMin !== undefined ? ` above ${kind.exclusiveMin}` : kind.min !== undefined ? ` of at least ${kind.min}` : ''}${kind.max !== undefined ? ` and at most ${kind.max}` : ''}`;
    case 'flag':
      return 'on or off (1, true, yes, on; 0, false, no, off)';
    case 'choice':
      return `one of ${kind.values.join(', ')}`;
    case 'text':
      return kind.patternSays ?? (kind.minLength ? `text of at least ${kind.minLength} characters` : 'text');
    case 'path':
      return 'a file or directory path';
    case 'url':
      return `a ${kind.protocols.map((protocol) => `${protocol}//`).join(' or ')} URL`;
    case 'list':
      return 'a comma-separated list';
    case 'duration':
      return `a duration such as 30d, 12h or 90m${kind.minMs > 0 ? ` of at least ${formatDuration(kind.minMs)}` : ''}${kind.off ? ', or off' : ''}`;
    case 'custom':
      return kind.says;
  }
}

/**
 * The value of a setting's text, or a problem naming the variable. A secret's text is never repeated in
 * a problem.
 */
export function parseSetting(setting: Setting, raw: string, suggest: (text: string, values: readonly string[]) => string | undefined): { value: unknown } | { problem: string } {
  const text = raw.trim();
  const { kind, name } = setting;
  const wrong = (extra = '') => ({ problem: `${name} must be ${expectation(kind)}${setting.secret ? '' : `, not ${quoted(text)}`}${extra}` });
  switch (kind.type) {
    case 'integer': {
      const value = Number(text);
      if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value < kind.min || (kind.max !== undefined && value > kind.max)) return wrong();
      return { value };
    }
    case 'number': {
      const value = Number(text);
      if (text === '' || !Number.isFinite(value)) return wrong();
      if ((kind.min !== undefined && value < kind.min) || (kind.exclusiveMin !== undefined && value <= kind.exclusiveMin) || (kind.max !== undefined && value > kind.max)) return wrong();
      return { value };
    }
    case 'flag':
      if (TRUE_WORDS.test(text)) return { value: true };
      if (FALSE_WORDS.test(text) || text === '') return { value: false };
      return wrong();
    case 'choice': {
      if (kind.values.includes(text)) return { value: text };
      const near = suggest(text, kind.values);
      return wrong(near === undefined ? '' : ` (did you mean ${near}?)`);
    }
    case 'text':
      if (text === '' || (kind.minLength !== undefined && text.length < kind.minLength) || (kind.pattern !== undefined && !kind.pattern.test(text))) return wrong();
      return { value: text };
    case 'path':
      if (text === '') return wrong();
      return { value: resolve(text) };
    case 'url': {
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        return wrong();
      }
      if (!kind.protocols.includes(url.protocol)) return wrong();
      return { value: text };
    }
    case 'list':
      return {
        value: text
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
      };
    case 'duration': {
      if (kind.off && /^(off|never|0)$/i.test(text)) return { value: 0 };
      const value = parseDuration(text);
      if (value === undefined || value < kind.minMs) return wrong();
      return { value };
    }
    case 'custom':
      try {
        return { value: kind.parse(text) };
      } catch (error) {
        return { problem: error instanceof Error ? error.message : `${name} must be ${kind.says}` };
      }
  }
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of a duration written as Prometheus does (`1d12h` too), or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  if (!/^([0-9]+(ms|s|m|h|d|w))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]+)(ms|s|m|h|d|w)/g)) total += Number(amount) * (DURATION_UNITS[unit as string] as number);
  return Number.isSafeInteger(total) ? total : undefined;
}

/** A duration in the largest unit that divides it (`30d`, `90m`), as settings are written. */
export function formatDuration(ms: number): string {
  for (const unit of ['w', 'd', 'h', 'm', 's'] as const) {
    const size = DURATION_UNITS[unit] as number;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
