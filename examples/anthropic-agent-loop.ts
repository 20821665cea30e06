/**
 * A complete agent loop on the Anthropic Messages API with Cachet: four-zone assembly,
 * breakpoints, the turn tail, usage, cost, live cache-break detection and a trace store.
 *
 *   ANTHROPIC_API_KEY=... npm run example:anthropic
 *
 * Without ANTHROPIC_API_KEY it prints the first wire body and exits 0 ("skipped"), so it doubles
 * as the optional live check: nothing in the test suite needs a key.
 */
import { readFile } from 'node:fs/promises';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import {
  type AssistantContentBlock,
  type AssistantMessage,
  currentTimeProvider,
  EventBus,
  type JsonObject,
  type PreparedRequest,
  prepareRequest,
  pricedBy,
  recordUsage,
  Session,
  tailProvider,
  watchCacheBreaks,
} from '../src/index.js';
import {
  type AnthropicCacheState,
  type AnthropicConversionMetadata,
  anthropicAdapter,
} from '../src/providers/anthropic/index.js';
import { anthropicEstimator } from '../src/tokens/index.js';
import { openTraceStore, recordEvents } from '../src/trace/index.js';

const model = process.env.CACHET_EXAMPLE_MODEL ?? 'claude-haiku-4-5';
const bus = new EventBus();
bus.on('cache.break', (event) => console.warn(`cache break: ${event.payload.cause} at ${event.payload.path}`));
const store = await openTraceStore(); // .cachet/traces.db; `npm run cachet -- serve` shows it
const recorder = recordEvents(bus, store);

const session = new Session({
  id: `example-${Date.now()}`,
  model,
  bus,
  global: {
    tools: [
      {
        name: 'read_file',
        description: 'Read a UTF-8 text file of this repository, by relative path.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    ],
    system: [{ label: 'persona', text: 'You are a concise assistant that answers questions about a code repository.' }],
  },
  sessionStatic: { system: [{ label: 'project', text: 'Repository: cachet (TypeScript, ESM).' }] },
  // Volatile content lives in the tail: never in the cached prefix, never persisted.
  tail: [currentTimeProvider(), tailProvider('working-context', () => '[working context] reviewing package.json')],
  params: { maxTokens: 1024 },
});

const counter = anthropicEstimator();
const breaks = watchCacheBreaks(session, 'anthropic');
const client = process.env.ANTHROPIC_API_KEY ? new Anthropic() : null;
let previous: AnthropicCacheState | null = null; // the adapter's state, passed back each request

session.appendUserText('Which test runner does this repository use? Read package.json to check.');
for (let step = 0; step < 4; step++) {
  const prepared: PreparedRequest<MessageCreateParamsNonStreaming, AnthropicConversionMetadata> = prepareRequest(
    session,
    anthropicAdapter,
    {
      turn: session.turn,
      step,
      adapterOptions: { tokenCounter: counter, previous },
    },
  );
  previous = prepared.metadata.cacheState;
  if (!client) {
    console.log(JSON.stringify(prepared.body, null, 2));
    console.log('skipped: set ANTHROPIC_API_KEY to run this loop against the API');
    break;
  }
  const reply = await client.messages.create(prepared.body);
  const usage = anthropicAdapter.parseUsage(reply);
  breaks.observe(prepared.body, { at: Date.now(), usage, turn: session.turn, step });
  const { costUsd, uncachedCostUsd } = recordUsage(session, usage, { turn: session.turn, step, price: pricedBy('anthropic') });
  console.log(
    `step ${step}: read ${usage.cacheReadTokens}, wrote ${usage.cacheWrite5mTokens + usage.cacheWrite1hTokens}, ` +
      `uncached ${usage.uncachedInputTokens} tokens; $${costUsd.toFixed(5)} (uncached $${uncachedCostUsd.toFixed(5)})`,
  );
  // Keep the reply exactly as received (thinking signatures must not change).
  const content = reply.content.flatMap((block): AssistantContentBlock[] => {
    if (block.type === 'text') return block.text ? [{ type: 'text', text: block.text }] : [];
    if (block.type === 'tool_use')
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input as JsonObject }];
    return [];
  });
  const assistant: AssistantMessage = { role: 'assistant', content };
  session.append(assistant);
  const calls = content.filter((block) => block.type === 'tool_use');
  if (calls.length === 0) {
    console.log(content.map((block) => (block.type === 'text' ? block.text : '')).join('\n'));
    break;
  }
  const results = await Promise.all(
    calls.map(async (call) => {
      const path = String((call.input as { path?: unknown }).path ?? '');
      const text = await readFile(new URL(`../${path}`, import.meta.url), 'utf8').catch((error: Error) => error.message);
      return { type: 'tool_result' as const, toolUseId: call.id, content: [{ type: 'text' as const, text: text || '(empty)' }] };
    }),
  );
  session.append({ role: 'user', content: results });
}
await recorder.stop();
await store.close();
