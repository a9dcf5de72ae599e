import { isRecord, type ServedData } from '@eql/core';

export type ValidationModeSetting = 'api-key' | 'payment';

/** What a client can configure: `initializationOptions`, or the `eql` section of its settings. */
export interface EqlSettings {
  /** Symbols offered by completion where a market symbol goes. */
  symbols: readonly string[];
  validation: {
    /** Quiet time after a change before the document is validated again. */
    debounceMs: number;
    /** `api-key` (default) or `payment`: the keyless model refuses trade actions. */
    mode: ValidationModeSetting;
    /**
     * What the host the queries are for serves (`{symbols, timeframes, history}`), so that a condition
     * it cannot serve is an error in the editor too; absent: nothing is assumed.
     */
    served?: ServedData;
  };
  diagnostics: {
    /**
     * The page each diagnostic's `codeDescription` links to, at the section of its code
     * (`<docsUrl>#<code>`): docs/diagnostics.md of the EQL repository by default; `''` sends no link.
     */
    docsUrl: string;
  };
}

/** Where docs/diagnostics.md is published: the default of `diagnostics.docsUrl`. */
export const DIAGNOSTICS_DOCS_URL = 'https://github.com/eql-dev/eql/blob/main/docs/diagnostics.md';

/** The settings before a client sends any: common symbols for completion, a 150 ms debounce, the `api-key` mode. */
export const DEFAULT_SETTINGS: EqlSettings = {
  symbols: ['BTC', 'ETH', 'SOL', 'XRP', 'DOGE', 'BNB', 'ADA', 'AVAX', 'LINK', 'SUI', 'BTC-PERP', 'ETH-PERP', 'BTC/USDT'],
  validation: { debounceMs: 150, mode: 'api-key' },
  diagnostics: { docsUrl: DIAGNOSTICS_DOCS_URL },
};

/**
 * Reads settings from what a client sent, over `base`: either the section itself
 * (`{symbols, validation: {debounceMs, mode, served}, diagnostics: {docsUrl}}`) or an object holding it (`{eql: {...}}`). `debounceMs` is
 * also read at the top level. Anything malformed keeps the value of `base`.
 */
export function readSettings(raw: unknown, base: EqlSettings = DEFAULT_SETTINGS): EqlSettings {
  const section = isRecord(raw) && isRecord(raw.eql) ? raw.eql : raw;
  if (!isRecord(section)) return base;
  const symbols =
    Array.isArray(section.symbols) && section.symbols.every((symbol) => typeof symbol === 'string' && symbol !== '')
      ? (section.symbols as string[])
      : base.symbols;
  const validation = isRecord(section.validation) ? section.validation : {};
  const debounce = validation.debounceMs ?? section.debounceMs;
  const debounceMs = typeof debounce === 'number' && Number.isFinite(debounce) && debounce >= 0 ? debounce : base.validation.debounceMs;
  const mode = validation.mode === 'api-key' || validation.mode === 'payment' ? validation.mode : base.validation.mode;
  const served = validation.served === null ? undefined : validation.served === undefined ? base.validation.served : readServed(validation.served, base.validation.served);
  const diagnostics = isRecord(section.diagnostics) ? section.diagnostics : {};
  const docsUrl = diagnostics.docsUrl === '' || isAbsoluteUrl(diagnostics.docsUrl) ? diagnostics.docsUrl : base.diagnostics.docsUrl;
  return { symbols, validation: served === undefined ? { debounceMs, mode } : { debounceMs, mode, served }, diagnostics: { docsUrl } };
}

function isAbsoluteUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** `{symbols?: string[], timeframes?: string[], history?: boolean}`; anything malformed keeps `base`. */
function readServed(raw: unknown, base: ServedData | undefined): ServedData | undefined {
  if (!isRecord(raw)) return base;
  const list = (value: unknown): string[] | undefined => (Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '') ? (value as string[]) : undefined);
  const served: ServedData = {};
  const symbols = list(raw.symbols);
  const timeframes = list(raw.timeframes);
  if (symbols) served.symbols = symbols;
  if (timeframes) served.timeframes = timeframes;
  if (typeof raw.history === 'boolean') served.history = raw.history;
  return served;
}

/** The settings in force; the server updates them from the client, the services read them. */
export class SettingsStore {
  private value: EqlSettings;
  private readonly listeners = new Set<(settings: EqlSettings) => void>();

  constructor(initial: unknown = undefined) {
    this.value = readSettings(initial);
  }

  /** The settings in effect now. */
  get current(): EqlSettings {
    return this.value;
  }

  /** Applies what a client sent (partial values keep the current ones) and tells the listeners. */
  update(raw: unknown): EqlSettings {
    this.value = readSettings(raw, this.value);
    for (const listener of this.listeners) listener(this.value);
    return this.value;
  }

  /** Calls `listener` with the new settings after each update; returns a function that stops it. */
  onChange(listener: (settings: EqlSettings) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
