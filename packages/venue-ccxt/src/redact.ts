/**
 * Removes secrets from a text before it goes into an error message: every occurrence of the given
 * secret values (and of their lowercase form), and the query strings of URLs, where venues put
 * signatures and keys.
 */
export function redactor(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
  const values = secrets
    .filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4)
    .flatMap((secret) => [secret, secret.toLowerCase(), secret.replace(/^0x/i, '')])
    .filter((secret) => secret.length >= 4)
    .sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text.replace(/(https?:\/\/[^\s?#"']+)\?[^\s"']*/g, '$1?…');
    for (const value of values) out = out.split(value).join('[redacted]');
    return out;
  };
}
