import { createCacheModel } from '../../cache/models/create-cache-model.js';
import { EventBus } from '../../events/event-bus.js';
import { type AnthropicCacheState, anthropicAdapter } from '../../providers/anthropic/index.js';
import { watchCacheBreaks } from '../../runtime/break-watch.js';
import { prepareRequest } from '../../runtime/prepare-request.js';
import { pricedBy, recordUsage } from '../../runtime/record-usage.js';
import { Session } from '../../session/session.js';
import { currentTimeProvider } from '../../session/tail-provider.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { recordEvents } from '../../trace/record-events.js';
import type { TraceStore } from '../../trace/trace-store.js';

/**
 * Drive a real Session through several turns and record what the trace store would see from
 * an agent: session and turn events from the Session, `request.assembled` from the runtime's
 * request cycle with the Anthropic adapter, usage from the Anthropic cache model judging each
 * wire body (priced from the pricing table), `cache.break` from the live break detector, and
 * a `skill.loaded`. The run has a TTL expiry and a model switch.
 */
export async function recordSampleRun(store: TraceStore, options: { sessionId?: string; start?: number } = {}): Promise<void> {
  const bus = new EventBus();
  const recorder = recordEvents(bus, store);
  let now = options.start ?? Date.UTC(2026, 10, 21, 9, 0, 0);
  const counter = anthropicEstimator();
  const persona = Array.from(
    { length: 120 },
    (_, index) => `Rule ${index + 1}: keep the prefix stable, append history, and put volatile facts in the turn tail.`,
  ).join('\n');
  const session = new Session({
    id: options.sessionId ?? 'sample-coding-session',
    model: 'claude-sonnet-4-5',
    global: {
      tools: [
        {
          name: 'read_file',
          description: 'Read a file of the workspace.',
          inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
        },
        { name: 'run_tests', description: 'Run the test suite.', inputSchema: { type: 'object', properties: {} } },
      ],
      system: [{ label: 'persona', text: persona }],
    },
    sessionStatic: { system: [{ label: 'project', text: 'Project: cachet. TypeScript, Node 20, vitest.' }] },
    tail: [currentTimeProvider()],
    bus,
    clock: () => now,
    labels: { provider: 'anthropic', strategy: 'cachet' },
  });
  const cache = createCacheModel('anthropic', { counter });
  const breaks = watchCacheBreaks(session, 'anthropic');
  let previous: AnthropicCacheState | null = null;

  // The request cycle an agent runs: assemble and convert (request.assembled), judge the wire
  // body with the Anthropic cache model as the provider would bill it, detect breaks, price it.
  const request = (turn: number, step: number) => {
    const prepared = prepareRequest(session, anthropicAdapter, {
      turn,
      step,
      now,
      counter,
      adapterOptions: { tokenCounter: counter, previous },
    });
    previous = prepared.metadata.cacheState;
    const verdict = cache.judge(prepared.body, { at: now });
    const usage = { ...verdict.usage, outputTokens: 40 + turn * 7 + step * 3 };
    breaks.observe(prepared.body, { at: now, usage, turn, step });
    recordUsage(session, usage, { turn, step, at: now, price: pricedBy('anthropic') });
  };

  const questions = [
    'Why does the suite fail on CI?',
    'Read src/session/assemble.ts and explain the tail.',
    'Run the tests again.',
    'Summarise what changed since this morning.',
    'Switch to the bigger model and review the diff.',
  ];
  for (const [index, question] of questions.entries()) {
    const turn = index + 1;
    if (turn === 4) now += 12 * 60_000; // a coffee break: the 5-minute cache expires
    if (turn === 5) session.setModel('claude-opus-4-1');
    session.appendUserText(question);
    now += 2_000;
    if (turn === 2) {
      bus.emit('skill.loaded', session.id, now, {
        source: 'workspace',
        skillId: 'typescript-review',
        version: '1',
        loadTokens: 640,
        loadReason: 'on_demand',
        toolUseId: null,
      });
    }
    request(turn, 0);
    const toolUseId = `toolu_${turn}`;
    session.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: toolUseId, name: 'read_file', input: { path: `src/file-${turn}.ts` } }],
    });
    now += 3_000;
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId, content: [{ type: 'text', text: `export const value${turn} = ${turn};` }] }],
    });
    request(turn, 1);
    session.append({ role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}: done.` }] });
    now += 20_000;
  }
  await recorder.stop();
}
