import type pg from 'pg';
import type { ChatMessageRecord, ChatSessionRecord, ChatStore } from '../chat-store.js';
import { inTransaction } from './checked-out.js';
import { storedJson, storedText, storedTextOrNull } from '../stored-text.js';

interface SessionRow {
  id: string;
  key_id: string | number;
  kind: string;
  analysis_type: string | null;
  state: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Chat sessions in PostgreSQL (the tables of pg-migrations.ts), with the semantics of the SQLite chat
 * store: a turn (its messages and the new state) is one transaction, committed when the call resolves.
 */
export class PgChatStore implements ChatStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Stores a new conversation. */
  async createSession(session: ChatSessionRecord): Promise<void> {
    await this.pool.query('INSERT INTO chat_sessions (id, key_id, kind, analysis_type, state, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      session.id,
      session.keyId,
      session.kind,
      storedTextOrNull(session.analysisType),
      session.state === undefined ? null : storedJson(session.state),
      session.createdAt,
      session.updatedAt,
    ]);
  }

  /** A conversation by id, or undefined. */
  async session(id: string): Promise<ChatSessionRecord | undefined> {
    const row = (await this.pool.query<SessionRow>('SELECT * FROM chat_sessions WHERE id = $1', [id])).rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      keyId: Number(row.key_id),
      kind: row.kind === 'builder' ? 'builder' : 'chat',
      analysisType: row.analysis_type,
      state: row.state === null ? undefined : (JSON.parse(row.state) as unknown),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  /** Appends a turn (its messages) and the new state, in one transaction. */
  async appendTurn(sessionId: string, messages: readonly ChatMessageRecord[], state: unknown, at: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      for (const message of messages) {
        await client.query('INSERT INTO chat_messages (session_id, role, content, credits, created_at) VALUES ($1, $2, $3, $4, $5)', [sessionId, message.role, storedText(message.content), message.credits, message.createdAt]);
      }
      await client.query('UPDATE chat_sessions SET state = $1, updated_at = $2 WHERE id = $3', [state === undefined ? null : storedJson(state), at, sessionId]);
    });
  }

  /** The last `limit` messages, oldest first. */
  async messages(sessionId: string, limit: number): Promise<ChatMessageRecord[]> {
    const rows = (
      await this.pool.query<{ role: string; content: string; credits: string | number; created_at: string }>(
        'SELECT role, content, credits, created_at FROM (SELECT * FROM chat_messages WHERE session_id = $1 ORDER BY id DESC LIMIT $2) last ORDER BY id',
        [sessionId, limit],
      )
    ).rows;
    return rows.map((row) => ({ role: row.role === 'assistant' ? 'assistant' : 'user', content: row.content, credits: Number(row.credits), createdAt: row.created_at }));
  }
}
