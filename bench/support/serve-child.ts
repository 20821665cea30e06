/**
 * Server process of the serve benchmark: opens the store named by argv[2], serves it on a free
 * loopback port and prints `listening <url>`. Exits when stdin closes.
 */
import { startServer } from '../../src/server/start-server.js';
import { openTraceStore } from '../../src/trace/open-trace-store.js';

const location = process.argv[2];
if (!location) throw new Error('usage: serve-child <db path or url>');
const store = await openTraceStore(location);
const server = await startServer({ store, port: 0 });
process.stdout.write(`listening ${server.url}\n`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await server.close();
  await store.close();
  process.exit(0);
});
