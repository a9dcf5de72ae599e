import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backupSqliteHost, createApiKey, restoreSqliteHost, SecretBox, SqliteStore } from '../src/index.js';

// The backup copies what a running host committed even when it is still only in the write-ahead log:
// the store keeps a connection open with automatic checkpoints off, so a copy of the main file alone
// would miss every key made since it opened.

const dir = mkdtempSync(join(tmpdir(), 'eql-backup-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backupSqliteHost', () => {
  it('copies the committed writes still in the WAL, and the copy restores with them', async () => {
    const dataDir = join(dir, 'data');
    const box = SecretBox.fromKey('ab'.repeat(32));
    const store = new SqliteStore(join(dataDir, 'eql.sqlite'), { box });
    try {
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      store.db.pragma('wal_autocheckpoint = 0');
      for (let index = 0; index < 5; index += 1) await createApiKey(store, box, { name: `k${index}`, plan: 'pro' });
      const result = backupSqliteHost(dataDir, join(dir, 'copy.sqlite'), { secretKeyInEnvironment: true });
      expect(result.keys).toBe(5);
      expect(result.secretKey).toBeUndefined();
    } finally {
      store.close();
    }
    const restored = restoreSqliteHost(join(dir, 'copy.sqlite'), join(dir, 'restored'), { secretKey: 'ab'.repeat(32) });
    expect(restored).toMatchObject({ keys: 5, secretKeyRestored: false, setAside: [] });
    // Another key than the copy's is refused, and says which.
    expect(() => restoreSqliteHost(join(dir, 'copy.sqlite'), join(dir, 'other'), { secretKey: 'cd'.repeat(32) })).toThrow(/EQL_SECRET_KEY/);
  });
});
