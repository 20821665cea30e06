import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { EventBus } from '../../events/event-bus.js';
import { recordEvents } from '../../trace/record-events.js';
import { openSqliteTraceStore } from '../../trace/sqlite-trace-store.js';
import { startEmulator } from '../emulate/start-emulator.js';
import { TEST_KEY } from '../test-support/proxy-harness.js';
import { startProxy } from './start-proxy.js';

const OPENING = 'Summarise the repository layout for a new engineer, please.';

/** One proxy as its own process would run it: its own bus and its own connection to the shared store file. */
async function proxyOnStore(upstream: string, dbPath: string, plan: boolean) {
  const store = openSqliteTraceStore(dbPath);
  const bus = new EventBus();
  const deadLetters: string[] = [];
  const recorder = recordEvents(bus, store, { onDeadLetter: (event, reason) => deadLetters.push(`${event.type}: ${reason}`) });
  const proxy = await startProxy({ upstream, bus, ...(plan ? { plan: true } : {}) });
  return {
    proxy,
    deadLetters,
    async close() {
      await proxy.close();
      await recorder.stop();
      await store.close();
    },
  };
}

describe('cachet proxy: identities never collide', () => {
  it('two proxies on one store, Anthropic and OpenAI clients opening alike: every event stored, one session each, its own provider and price', async () => {
    const emulator = await startEmulator({ apiKey: TEST_KEY });
    const dbPath = join(mkdtempSync(join(tmpdir(), 'cachet-identity-')), 'traces.db');
    const first = await proxyOnStore(emulator.url, dbPath, true);
    const second = await proxyOnStore(emulator.url, dbPath, false);
    try {
      const system = 'You are a careful assistant. '.repeat(200);
      const anthropicBody = (turns: number) => ({
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        system,
        messages: Array.from({ length: turns * 2 - 1 }, (_, index) => ({
          role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
          content: index === 0 ? OPENING : `step ${index}`,
        })),
      });
      const chatBody = (turns: number) => ({
        model: 'gpt-4.1',
        messages: [
          { role: 'system' as const, content: system },
          ...Array.from({ length: turns * 2 - 1 }, (_, index) =>
            index % 2 === 0
              ? { role: 'user' as const, content: index === 0 ? OPENING : `step ${index}` }
              : { role: 'assistant' as const, content: `step ${index}` },
          ),
        ],
      });
      for (let turn = 1; turn <= 3; turn++) {
        for (const running of [first, second]) {
          await new Anthropic({ apiKey: TEST_KEY, baseURL: running.proxy.url, maxRetries: 0 }).messages.create(
            anthropicBody(turn),
          );
        }
        await new OpenAI({ apiKey: TEST_KEY, baseURL: `${first.proxy.url}/v1`, maxRetries: 0 }).chat.completions.create(
          chatBody(turn),
        );
      }
    } finally {
      await first.close();
      await second.close();
      await emulator.close();
    }
    expect([...first.deadLetters, ...second.deadLetters]).toEqual([]);
    const store = openSqliteTraceStore(dbPath);
    try {
      expect(await store.deadLetters()).toEqual([]);
      const sessions = await store.sessions();
      expect(sessions).toHaveLength(3);
      expect(sessions.map((session) => session.requests)).toEqual([3, 3, 3]);
      const providers = await Promise.all(
        sessions.map(async (session) => {
          const [started] = await store.events({ sessionId: session.sessionId, types: ['session.started'] });
          const payload = started!.payload as { provider: string; source?: string; client?: string };
          // Proxy sessions say where they came from: the proxy, and the client's User-Agent product.
          expect(payload.source).toBe('proxy');
          expect(payload.client).toMatch(/^\S+$/);
          return payload.provider;
        }),
      );
      expect(providers.sort()).toEqual(['anthropic', 'anthropic', 'openai-chat']);
      for (const session of sessions) expect(session.costUsd).toBeGreaterThan(0);
      // No session mixes models: nothing reads as a model change.
      expect(await store.events({ types: ['cache.break'] })).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
