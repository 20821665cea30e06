/** An emulator upstream, a proxy in front of it and a real SQLite trace store behind it. Test support only. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../../events/event-bus.js';
import { recordEvents } from '../../trace/record-events.js';
import { openSqliteTraceStore } from '../../trace/sqlite-trace-store.js';
import type { TraceStore } from '../../trace/trace-store.js';
import type { ScriptedReply } from '../emulate/reply-script.js';
import { type RunningEmulator, startEmulator } from '../emulate/start-emulator.js';
import type { CaptureRecord } from '../proxy/capture-record.js';
import { type RunningProxy, type StartProxyOptions, startProxy } from '../proxy/start-proxy.js';

export const TEST_KEY = 'sk-ant-test-KEY-9f8e7d6c5b4a';

export interface Harness {
  emulator: RunningEmulator;
  proxy: RunningProxy;
  store: TraceStore;
  dbPath: string;
  captured: CaptureRecord[];
  /** Wait for in-flight exchanges and flush events to the store. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(
  options: { proxy?: Partial<StartProxyOptions>; replies?: ScriptedReply[]; now?: () => number } = {},
): Promise<Harness> {
  const emulator = await startEmulator({
    apiKey: TEST_KEY,
    ...(options.replies ? { replies: options.replies } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const dbPath = join(mkdtempSync(join(tmpdir(), 'cachet-proxy-')), 'traces.db');
  const store = openSqliteTraceStore(dbPath);
  const bus = new EventBus();
  const recorder = recordEvents(bus, store);
  const captured: CaptureRecord[] = [];
  const proxy = await startProxy({
    upstream: emulator.url,
    bus,
    capture: (record) => captured.push(record),
    ...(options.now ? { now: options.now } : {}),
    ...options.proxy,
  });
  return {
    emulator,
    proxy,
    store,
    dbPath,
    captured,
    async flush() {
      await proxy.settled();
      await recorder.flush();
    },
    async close() {
      await proxy.close();
      await recorder.stop();
      await store.close();
      await emulator.close();
    },
  };
}
