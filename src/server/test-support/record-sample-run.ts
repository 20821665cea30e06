import { createBreakDetector } from '../../cache/break/break-detector.js';
import { EventBus } from '../../events/event-bus.js';
import type { Usage } from '../../model/usage.js';
import { anthropicAdapter } from '../../providers/anthropic/index.js';
import { BlockDeltaTracker } from '../../runtime/block-delta.js';
import { assemble } from '../../session/assemble.js';
import { Session } from '../../session/session.js';
import { currentTimeProvider } from '../../session/tail-provider.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { requestItems } from '../../tokens/request-items.js';
import { recordEvents } from '../../trace/record-events.js';
import type { TraceStore } from '../../trace/trace-store.js';

const FIVE_MINUTES = 5 * 60_000;
/** USD per million tokens (Claude Sonnet 4.5 list prices, 2026-11). */
const PRICE = { input: 3, cacheRead: 0.3, cacheWrite5m: 3.75, output: 15 };

/**
 * Drive a real Session through several turns and record what the trace store would see from
 * an agent: session and turn events from the Session, `request.assembled` from the Anthropic
 * adapter's conversion, `cache.break` from the live break detector, `skill.loaded`, and
 * `usage.recorded` from a prefix cache model (read the longest prefix the previous request
 * left cached within 5 minutes on the same model, write the rest of the cacheable prefix,
 * the turn tail uncached). The run has a TTL expiry and a model switch.
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
  const detector = createBreakDetector({ bus, sessionId: session.id, format: 'anthropic' });
  let previous: { prefixHashes: Set<string>; at: number; model: string } | null = null;

  const blockDeltas = new BlockDeltaTracker();
  const request = (turn: number, step: number) => {
    const canonical = assemble(session);
    const { body, metadata } = anthropicAdapter.convertRequest(canonical);
    const items = requestItems(canonical);
    const tokens = items.map(({ item }) => counter.countBlock(item));
    const zoneTokens = { global: 0, session: 0, history: 0, tail: 0 };
    items.forEach(({ zone }, index) => {
      zoneTokens[zone] += tokens[index]!;
    });
    bus.emit('request.assembled', session.id, now, {
      turn,
      step,
      provider: 'anthropic',
      model: canonical.model,
      zoneTokens,
      ...blockDeltas.next(session.id, canonical.blocks),
      breakpoints: metadata.breakpoints,
      padding: metadata.padding,
      warnings: metadata.warnings,
    });
    const warm = previous !== null && previous.model === canonical.model && now - previous.at <= FIVE_MINUTES;
    let read = 0;
    let cacheable = 0;
    let uncached = 0;
    let matching = true;
    canonical.blocks.forEach((block, index) => {
      const blockTokens = tokens[index]!;
      if (block.zone === 'tail') {
        uncached += blockTokens;
        return;
      }
      cacheable += blockTokens;
      matching = matching && warm && previous!.prefixHashes.has(block.prefixHash);
      if (matching) read += blockTokens;
    });
    const output = 40 + turn * 7 + step * 3;
    const usage: Usage = {
      uncachedInputTokens: uncached,
      cacheReadTokens: read,
      cacheWrite5mTokens: cacheable - read,
      cacheWrite1hTokens: 0,
      outputTokens: output,
      reasoningTokens: 0,
      raw: { source: 'sample prefix cache model' },
    };
    detector.observe(body, { at: now, usage, turn, step });
    const perMillion = (count: number, price: number) => (count * price) / 1_000_000;
    bus.emit('usage.recorded', session.id, now, {
      turn,
      step,
      model: canonical.model,
      usage,
      costUsd:
        perMillion(uncached, PRICE.input) +
        perMillion(read, PRICE.cacheRead) +
        perMillion(cacheable - read, PRICE.cacheWrite5m) +
        perMillion(output, PRICE.output),
      uncachedCostUsd: perMillion(uncached + cacheable, PRICE.input) + perMillion(output, PRICE.output),
    });
    previous = {
      prefixHashes: new Set(canonical.blocks.filter((block) => block.zone !== 'tail').map((block) => block.prefixHash)),
      at: now,
      model: canonical.model,
    };
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
