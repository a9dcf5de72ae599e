/**
 * A database URL fit for logs and error messages: its password replaced by `***` (and any `password`
 * parameter too). Text that is not a URL is not repeated at all.
 */
export function redactDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(a value that is not a URL)';
  }
  if (parsed.password !== '') parsed.password = '***';
  if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
  return parsed.toString();
}

/**
 * Checks EQL_DATABASE_URL: a `postgres://` or `postgresql://` URL. Throws an error naming the variable
 * and the redacted value otherwise.
 */
export function checkDatabaseUrl(url: string, variable = 'EQL_DATABASE_URL'): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') throw new Error(`${variable} must be a postgres:// URL (postgres://user:password@host:5432/database), not ${redactDatabaseUrl(url)}`);
  return url;
}
