import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { NotificationDraft } from '@eql/core';
import { createApiKey, SecretBox, SqliteStore } from '../src/index.js';
import { removeDir } from './support/harness.js';
import { SECRET_KEY_HEX } from './support/host.js';

// The SQLite store groups the engine's writes of one instant into one transaction (`together`, issue 47):
// a storm is one commit. Another connection (another process on the same file) sees none of the group's
// writes before its end and all of them after; a group that writes nothing opens no transaction.

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeDir(dir);
});

const draft = (queryId: string): NotificationDraft => ({ type: 'athena_query_notify_only', category: 'alerts', title: 't', body: 'fell', data: { queryId, stepId: 'tell', triggerIndex: 1 }, priority: 'high', createdAt: new Date().toISOString() });

describe('SqliteStore.together', () => {
  it("makes the writes inside it one transaction: another connection sees them all at its end, none before", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eql-grouped-'));
    dirs.push(dir);
    const path = join(dir, 'eql.sqlite');
    const box = SecretBox.fromKey(SECRET_KEY_HEX);
    const store = new SqliteStore(path, { box });
    const { record } = await createApiKey(store, box, { name: 'g', plan: 'pro' });
    const other = new Database(path, { readonly: true });
    const count = () => (other.prepare('SELECT count(*) AS n FROM notifications').get() as { n: number }).n;
    const seenInside: number[] = [];
    store.together(() => {
      for (let index = 0; index < 100; index += 1) {
        store.addNotification(record.id, draft(`q${index}`));
        if (index % 25 === 0) seenInside.push(count());
      }
    });
    expect(seenInside).toEqual([0, 0, 0, 0]);
    expect(count()).toBe(100);
    // A group that writes nothing leaves no transaction open; a write after it commits alone.
    store.together(() => undefined);
    store.addNotification(record.id, draft('after'));
    expect(count()).toBe(101);
    other.close();
    store.close();
  });
});
