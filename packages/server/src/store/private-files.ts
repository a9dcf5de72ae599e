import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

/**
 * The data directory and its files are its owner's only: the directory 0700, databases (with their
 * `-wal` and `-shm` files) and keys 0600. Sealed secrets are safe anywhere, but what is not sealed
 * (hashes, titles, prices, chats) is nobody else's business either. Modes are POSIX; on Windows these
 * calls change nothing.
 */

/** Creates a directory with mode 0700, or takes group and other permissions away from an existing one. */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0) chmodSync(dir, mode & 0o700);
}

/** Creates an empty file with mode 0600 when it does not exist, or sets 0600 on an existing one. */
export function privateFile(path: string): void {
  if (existsSync(path)) chmodSync(path, 0o600);
  else closeSync(openSync(path, 'a', 0o600));
}

/**
 * Before a SQLite database is opened: its file exists with mode 0600, so the `-wal` and `-shm` files
 * SQLite creates beside it take the same mode (SQLite gives them the database file's permissions).
 * An empty file is an empty database.
 */
export function privateDatabase(path: string): void {
  if (path === ':memory:' || path === '') return;
  privateFile(path);
}

/** After a SQLite database is opened: its `-wal` and `-shm` files, when there are, get mode 0600 (ones made by an earlier version). */
export function privateDatabaseCompanions(path: string): void {
  if (path === ':memory:' || path === '') return;
  for (const suffix of ['', '-wal', '-shm', '-journal']) if (existsSync(`${path}${suffix}`)) chmodSync(`${path}${suffix}`, 0o600);
}
