/**
 * Child process of the concurrent-open test: for each line `<path>` on stdin, open the SQLite
 * trace store at that path and answer `ok` or `error <message>`. The parent sends the same path
 * to every child at once, so the opens race on one fresh file.
 */
import { createInterface } from 'node:readline';
import { openSqliteTraceStore } from '../sqlite-trace-store.js';

process.stdout.write('ready\n');
for await (const path of createInterface({ input: process.stdin })) {
  try {
    const store = openSqliteTraceStore(path);
    await store.append({ type: 'turn.started', sessionId: `pid-${process.pid}`, seq: 0, at: 1, payload: { turn: 1 } });
    await store.close();
    process.stdout.write('ok\n');
  } catch (error) {
    process.stdout.write(`error ${(error as Error).message.replace(/\n/g, ' ')}\n`);
  }
}
