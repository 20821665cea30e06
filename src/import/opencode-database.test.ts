import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { temporaryFiles } from '../cli/test-support/cli-test-io.js';
import { importLogs } from './run-import.js';

const MESSAGES = fileURLToPath(new URL('./__fixtures__/opencode/storage/message/ses_A/', import.meta.url));

/**
 * An opencode.db written as opencode's drizzle schema declares it (packages/opencode/src/session/
 * session.sql.ts): `data` holds each message's JSON without `id` and `sessionID`. The rows are the
 * JSON fixture's messages, the truncated one included as it was cut.
 */
function writeOpencodeDatabase(path: string): void {
  const database = new Database(path);
  database.exec(`
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, directory TEXT NOT NULL,
      title TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE INDEX message_session_idx ON message (session_id);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);`);
  database
    .prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run('ses_A', 'global', null, '/work/demo', 'Fixture', '1.2.0', 1763636400000, 1763636463000);
  const insert = database.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)');
  // Inserted newest first: the reader orders them, not the table.
  for (const file of readdirSync(MESSAGES).sort().reverse()) {
    const text = readFileSync(join(MESSAGES, file), 'utf8');
    const id = file.replace('.json', '');
    let data = text;
    let created = 1763636463000;
    try {
      const { id: _id, sessionID: _session, ...rest } = JSON.parse(text);
      data = JSON.stringify(rest);
      created = rest.time.created;
    } catch {
      // The truncated message stays as written.
    }
    insert.run(id, 'ses_A', created, created, data);
  }
  database.close();
}

describe('importLogs: opencode SQLite storage (opencode.db)', () => {
  it('reads the message table as it reads the message files: same requests, tokens, causes and skips', async () => {
    const { directory } = temporaryFiles('cachet-opencode-db-');
    const file = join(directory, 'opencode.db');
    writeOpencodeDatabase(file);
    const fromDatabase = await importLogs({ harness: 'opencode', path: file });
    const fromFiles = await importLogs({ harness: 'opencode', path: join(MESSAGES, '..', '..', '..') });
    // One database file against six message files, and its own path; every other figure the same
    // (import-logs.test.ts pins them).
    expect(fromDatabase.files).toBe(1);
    expect(fromFiles.requests).toBeGreaterThan(0);
    expect({ ...fromDatabase, files: fromFiles.files, path: fromFiles.path }).toEqual(fromFiles);
  });

  it('defaults to the database when it exists, and skips a file that is not one', async () => {
    const { directory } = temporaryFiles('cachet-opencode-home-');
    const data = join(directory, '.local', 'share', 'opencode');
    mkdirSync(join(data, 'storage', 'message', 'ses_old'), { recursive: true });
    writeFileSync(join(data, 'storage', 'message', 'ses_old', 'msg_1.json'), '{"role":"user","time":{"created":1}}');
    writeOpencodeDatabase(join(data, 'opencode.db'));
    expect(await importLogs({ harness: 'opencode', home: directory, env: {} })).toMatchObject({ files: 1, requests: 3 });
    const foreign = join(directory, 'opencode.db');
    writeFileSync(foreign, 'not a database');
    expect(await importLogs({ harness: 'opencode', path: foreign })).toMatchObject({ requests: 0, skipped: { foreign: 1 } });
  });
});
