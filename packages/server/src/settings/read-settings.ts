import { readFileSync } from 'node:fs';
import { closest, distance } from 'fastest-levenshtein';
import { HOST_SETTINGS, OTHER_VARIABLES } from './host-settings.js';
import { ConfigurationError, parseSetting, type Setting } from './setting.js';

/** Where a setting's value came from. */
export type SettingSource = 'environment' | 'file' | 'default';

/** The settings of an environment: the parsed values of those set, where each came from, and what to warn about. */
export interface ReadSettings {
  values: Map<string, unknown>;
  sources: Map<string, SettingSource>;
  /** The environment with each `<NAME>_FILE` of a secret read into `<NAME>` (for the readers of groups: NATS, LLM). */
  resolved: NodeJS.ProcessEnv;
  /** Unknown `EQL_*` variables, with a did-you-mean when one is close. */
  warnings: string[];
}

const BY_NAME = new Map(HOST_SETTINGS.map((setting) => [setting.name, setting]));

/** The closest of `values` to `text` when it is close enough to be a typo. */
function nearest(text: string, values: readonly string[]): string | undefined {
  if (values.length === 0) return undefined;
  const candidate = closest(text.toLowerCase(), values.map((value) => value.toLowerCase()));
  const index = values.findIndex((value) => value.toLowerCase() === candidate);
  return distance(text.toLowerCase(), candidate) <= Math.max(2, Math.floor(candidate.length / 4)) ? values[index] : undefined;
}

const hasFile = (setting: Setting) => setting.secret === true && setting.file !== false;

/**
 * Reads every `EQL_*` variable of `env` against the table: a secret may come from a file (`<NAME>_FILE`,
 * its content, a trailing newline dropped); each value is checked by its kind. Every problem names its
 * variable, and all of them are thrown together ({@link ConfigurationError}); unknown `EQL_*` variables are
 * warnings, with a did-you-mean. A variable set to the empty string counts as unset.
 */
export function readSettings(env: NodeJS.ProcessEnv): ReadSettings {
  const { problems, ...read } = collectSettings(env);
  if (problems.length > 0) throw new ConfigurationError(problems);
  return read;
}

/** {@link readSettings} without throwing: the values it could read, and the problems of the others. */
export function collectSettings(env: NodeJS.ProcessEnv): ReadSettings & { problems: string[] } {
  const values = new Map<string, unknown>();
  const sources = new Map<string, SettingSource>();
  const resolved: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  const warnings: string[] = [];
  const fileVariants = new Set(HOST_SETTINGS.filter(hasFile).map((setting) => `${setting.name}_FILE`));
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('EQL_') || BY_NAME.has(name) || fileVariants.has(name)) continue;
    if (OTHER_VARIABLES.names.includes(name as never) || OTHER_VARIABLES.prefixes.some((prefix) => name.startsWith(prefix))) continue;
    const near = nearest(name, [...BY_NAME.keys(), ...fileVariants]);
    warnings.push(`unknown variable ${name}${near === undefined ? '' : ` (did you mean ${near}?)`}: the host ignores it`);
  }
  for (const setting of HOST_SETTINGS) {
    const direct = env[setting.name];
    const fileName = `${setting.name}_FILE`;
    const file = hasFile(setting) ? env[fileName] : undefined;
    let text: string | undefined;
    if (direct !== undefined && direct !== '' && file !== undefined && file !== '') {
      problems.push(`${setting.name} and ${fileName} are both set: give the value one way`);
      continue;
    }
    if (file !== undefined && file !== '') {
      try {
        text = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      } catch (error) {
        problems.push(`${fileName}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
        continue;
      }
      sources.set(setting.name, 'file');
      resolved[setting.name] = text;
    } else if (direct !== undefined && direct !== '') {
      text = direct;
      sources.set(setting.name, 'environment');
    }
    if (text === undefined) continue;
    const parsed = parseSetting(setting, text, nearest);
    if ('problem' in parsed) problems.push(parsed.problem);
    else values.set(setting.name, parsed.value);
  }
  return { values, sources, resolved, warnings, problems };
}

/** The warnings about unknown `EQL_*` variables of `env` alone (for a host that reads its settings elsewhere). */
export function settingsWarnings(env: NodeJS.ProcessEnv): string[] {
  try {
    return readSettings(env).warnings;
  } catch {
    return [];
  }
}

/** One line of `eql config print`: a setting, its value as shown (a secret masked), and where it came from. */
export interface PrintedSetting {
  name: string;
  group: string;
  value: string;
  source: SettingSource;
  secret: boolean;
}

/**
 * The effective settings for people: each variable with the value in force (its default when unset), a
 * secret masked (`***`, or its own mask: a URL without its password), and where it came from.
 */
export function printedSettings(env: NodeJS.ProcessEnv): PrintedSetting[] {
  const read = readSettings(env);
  return HOST_SETTINGS.map((setting) => {
    const source = read.sources.get(setting.name) ?? 'default';
    const text = read.resolved[setting.name]?.trim();
    let value = setting.defaultText;
    if (source !== 'default' && text !== undefined) value = setting.secret ? (setting.mask ? setting.mask(text) : '***') : text;
    return { name: setting.name, group: setting.group, value, source, secret: setting.secret === true };
  });
}
