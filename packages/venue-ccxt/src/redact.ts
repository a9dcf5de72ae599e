import { secretRedactor } from '@eql/core';

/**
 * Removes secrets from a text before it goes into an error message: every occurrence of the given
 * secret values (and of their lowercase form, and without a `0x` prefix), and the query strings of
 * URLs, where venues put signatures and keys. Only whole values are removed, never fragments of
 * ordinary words: values shorter than 4 characters are left alone, and values shorter than 12 are
 * removed only where they stand as a whole word (`secretRedactor` of @eql/core), so a submitted
 * `Net` or `k` does not turn `NetworkError` into `Networ[redacted]Error`.
 */
export function redactor(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
  const values = secrets
    .filter((secret): secret is string => typeof secret === 'string')
    .flatMap((secret) => [secret, secret.toLowerCase(), secret.replace(/^0x/i, '')]);
  const redactSecrets = secretRedactor(values);
  return (text) => redactSecrets(text.replace(/(https?:\/\/[^\s?#"']+)\?[^\s"']*/g, '$1?…'));
}
