import type { SecretBox } from '../secrets.js';
import { StartError } from '../start-error.js';

/** What the check value opens to with the right key (its content matters less than that it opens). */
const CHECK_TEXT = 'eql secret key check v1';

/**
 * The host's secret key does not open the secrets of its database: they were sealed with another key.
 * Its message is one line for the operator (no secret in it); `eql serve` prints it without a stack.
 */
export class SecretKeyMismatchError extends StartError {
  constructor() {
    super(
      'EQL_SECRET_KEY does not open the secrets stored in this database (they were sealed with another key): start every host of a database with the same EQL_SECRET_KEY (without it, a host uses the secret.key file of its data directory)',
    );
    this.name = 'SecretKeyMismatchError';
  }
}

/** What a database holds to judge a key by: its check value, else (a database from before it) one stored secret. */
export interface StoredSecrets {
  check: string | undefined;
  sample: string | undefined;
}

/** Whether `box` opens `sealed` (an altered or foreign value fails its authentication tag). */
function opens(box: SecretBox, sealed: string, expected?: string): boolean {
  try {
    const plain = box.open(sealed);
    return expected === undefined || plain === expected;
  } catch {
    return false;
  }
}

/**
 * Judges the host's key against what its database holds: throws {@link SecretKeyMismatchError} when the
 * check value (else the stored secret) does not open; returns a check value to store when there is none
 * yet, undefined when the check value opened.
 */
export function judgeSecretKey(box: SecretBox, stored: StoredSecrets): string | undefined {
  if (stored.check !== undefined) {
    if (!opens(box, stored.check, CHECK_TEXT)) throw new SecretKeyMismatchError();
    return undefined;
  }
  if (stored.sample !== undefined && !opens(box, stored.sample)) throw new SecretKeyMismatchError();
  return box.seal(CHECK_TEXT);
}
