// Who is signed in. The API key lives in the tab's session storage (gone when the tab closes, never in a
// URL); the HMAC secret, needed only to sign trade-flavoured mutations, lives in this page's memory only.
import { createEqlClient, type EqlClient } from '@eql/client';

const KEY_ITEM = 'eql-console-api-key';

export interface Session {
  readonly apiKey: string;
  /** Set when the user gave it for this page (a reload forgets it). */
  hmacSecret: string | undefined;
  readonly client: EqlClient;
  /**
   * The same key without the HMAC secret, for the questions the page asks on its own (the host's verdict
   * while the text rests): the host takes each signature once, and a signed question in the background
   * would spend the signature of the user's next Validate or Create of the same body within the second.
   */
  readonly checker: EqlClient;
}

let current: Session | undefined;

/** The session of this tab, if its key is stored. */
export function restoreSession(): Session | undefined {
  const apiKey = sessionStorage.getItem(KEY_ITEM);
  if (apiKey === null || apiKey === '') return undefined;
  current = makeSession(apiKey, undefined);
  return current;
}

/** Checks the key with the host (`GET /v2/key-status`) and keeps it for the tab. */
export async function signIn(apiKey: string, hmacSecret: string | undefined): Promise<Session> {
  const session = makeSession(apiKey.trim(), hmacSecret === '' ? undefined : hmacSecret);
  await session.client.keyStatus();
  sessionStorage.setItem(KEY_ITEM, session.apiKey);
  current = session;
  return session;
}

export function signOut(): void {
  sessionStorage.removeItem(KEY_ITEM);
  current = undefined;
}

/** Gives the session an HMAC secret for this page (kept in memory only). */
export function useHmacSecret(session: Session, secret: string): Session {
  current = makeSession(session.apiKey, secret === '' ? undefined : secret);
  return current;
}

export function currentSession(): Session | undefined {
  return current;
}

function makeSession(apiKey: string, hmacSecret: string | undefined): Session {
  const client = createEqlClient({ baseUrl: location.origin, apiKey, hmacSecret });
  const checker = hmacSecret === undefined ? client : createEqlClient({ baseUrl: location.origin, apiKey });
  return { apiKey, hmacSecret, client, checker };
}
