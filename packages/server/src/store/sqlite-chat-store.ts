import type Database from 'better-sqlite3';
import type { ChatMessageRecord, ChatSessionRecord, ChatStore } from './chat-store.js';
import { storedJson, storedText, storedTextOrNull } from './stored-text.js';

interface SessionRow {
  id: string;
  key_id: number;
  kind: string;
  analysis_type: string | null;
  state: string | null;
  created_at: string;
  updated_at: string;
}

/** Chat sessions in the host's SQLite database (tables of migration 3). */
export class SqliteChatStore implements ChatStore {
  private readonly insertSession: Database.Statement;
  private readonly selectSession: Database.Statement;
  private readonly insertMessage: Database.Statement;
  private readonly updateSession: Database.Statement;
  private readonly selectMessages: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.insertSession = db.prepare('INSERT INTO chat_sessions (id, key_id, kind, analysis_type, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.selectSession = db.prepare('SELECT * FROM chat_sessions WHERE id = ?');
    this.insertMessage = db.prepare('INSERT INTO chat_messages (session_id, role, content, credits, created_at) VALUES (?, ?, ?, ?, ?)');
    this.updateSession = db.prepare('UPDATE chat_sessions SET state = ?, updated_at = ? WHERE id = ?');
    this.selectMessages = db.prepare('SELECT role, content, credits, created_at FROM (SELECT * FROM chat_messages WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id');
  }

  createSession(session: ChatSessionRecord): void {
    this.insertSession.run(session.id, session.keyId, session.kind, storedTextOrNull(session.analysisType), session.state === undefined ? null : storedJson(session.state), session.createdAt, session.updatedAt);
  }

  session(id: string): ChatSessionRecord | undefined {
    const row = this.selectSession.get(id) as SessionRow | undefined;
    if (!row) return undefined;
    return {
      id: row.id,
      keyId: row.key_id,
      kind: row.kind === 'builder' ? 'builder' : 'chat',
      analysisType: row.analysis_type,
      state: row.state === null ? undefined : (JSON.parse(row.state) as unknown),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  appendTurn(sessionId: string, messages: readonly ChatMessageRecord[], state: unknown, at: string): void {
    this.db.transaction(() => {
      for (const message of messages) this.insertMessage.run(sessionId, message.role, storedText(message.content), message.credits, message.createdAt);
      this.updateSession.run(state === undefined ? null : storedJson(state), at, sessionId);
    })();
  }

  messages(sessionId: string, limit: number): ChatMessageRecord[] {
    const rows = this.selectMessages.all(sessionId, limit) as Array<{ role: string; content: string; credits: number; created_at: string }>;
    return rows.map((row) => ({ role: row.role === 'assistant' ? 'assistant' : 'user', content: row.content, credits: row.credits, createdAt: row.created_at }));
  }
}
