import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import type { Message } from '../model/content.js';
import { anthropicAdapter } from '../providers/anthropic/index.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { createLlmSummarizer, parseSummary } from './llm-summarizer.js';
import type { SummaryInput } from './summarizer.js';
import { fileText, toolCall, toolResult } from './test-support.js';

const span: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'Fix the flaky cache test. Never touch vendor/.' }] },
  toolCall('t1', 'src/cache/ttl.test.ts'),
  { role: 'user', content: [toolResult('t1', fileText(300))] },
  { role: 'assistant', content: [{ type: 'text', text: 'I decided to use fake timers.' }] },
];

const reply = {
  userGoal: 'Fix the flaky cache test',
  activeTasks: ['make ttl.test.ts deterministic'],
  completedWork: ['read src/cache/ttl.test.ts (ctx_0123456789abcdef)'],
  decisions: ['use fake timers'],
  errorsAndResolutions: [],
  filesAndResources: ['src/cache/ttl.test.ts'],
  keyFacts: [],
  constraintsAndPreferences: ['never touch vendor/'],
  openQuestions: [],
  nextSteps: ['run the test 20 times'],
  sessionNotes: ['model-invented note'],
};

function input(bus?: EventBus): SummaryInput {
  return {
    sessionId: 's1',
    span,
    previous: null,
    restoreIds: new Map([['t1', 'ctx_0123456789abcdef']]),
    notes: ['real note'],
    bus,
    now: 0,
  };
}

function recorder() {
  const bus = new EventBus();
  const warnings: string[] = [];
  bus.on('warning.raised', (event: CachetEvent<'warning.raised'>) => warnings.push(event.payload.message));
  return { bus, warnings };
}

describe('LLM summariser', () => {
  it('builds the request with Session + assemble + the Anthropic adapter and parses the eleven fields', async () => {
    const sent: MessageCreateParamsNonStreaming[] = [];
    const summarizer = createLlmSummarizer({
      adapter: anthropicAdapter,
      send: async (body) => {
        sent.push(body);
        return { content: [{ type: 'text', text: `Here it is:\n${JSON.stringify(reply)}` }] };
      },
      model: 'claude-haiku-4-5',
      windowTokens: 200_000,
      mainModel: 'claude-sonnet-4-5',
      mainWindowTokens: 200_000,
      counter: anthropicEstimator(),
    });
    const summary = await summarizer.summarize(input());
    expect(sent).toHaveLength(1);
    expect(sent[0]?.model).toBe('claude-haiku-4-5');
    const prompt = JSON.stringify(sent[0]?.messages);
    expect(prompt).toContain('Never touch vendor/.');
    expect(prompt).toContain('restore id ctx_0123456789abcdef');
    expect(summary.decisions).toEqual(['use fake timers']);
    // Notes come from the session, never from the model.
    expect(summary.sessionNotes).toEqual(['real note']);
  });

  it('falls back to the main model with a warning when the auxiliary window is too small', async () => {
    const { bus, warnings } = recorder();
    const models: string[] = [];
    const summarizer = createLlmSummarizer({
      adapter: anthropicAdapter,
      send: async (body) => {
        models.push(body.model);
        return { content: [{ type: 'text', text: JSON.stringify(reply) }] };
      },
      model: 'claude-haiku-4-5',
      windowTokens: 1_000,
      mainModel: 'claude-sonnet-4-5',
      mainWindowTokens: 200_000,
      counter: anthropicEstimator(),
    });
    const summary = await summarizer.summarize(input(bus));
    expect(models).toEqual(['claude-sonnet-4-5']);
    expect(summary.userGoal).toBe('Fix the flaky cache test');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/claude-haiku-4-5 has a 1000-token window .* using the main model claude-sonnet-4-5/);
  });

  it('never loses the session: no model fits, a failed call or a bad reply fall back to the extractive summary', async () => {
    const { bus, warnings } = recorder();
    const base = {
      adapter: anthropicAdapter,
      model: 'claude-haiku-4-5',
      mainModel: 'claude-sonnet-4-5',
      counter: anthropicEstimator(),
    };
    const tooSmall = createLlmSummarizer({ ...base, send: async () => ({}), windowTokens: 500, mainWindowTokens: 500 });
    expect((await tooSmall.summarize(input(bus))).userGoal).toBe('Fix the flaky cache test. Never touch vendor/.');
    const failing = createLlmSummarizer({
      ...base,
      send: async () => Promise.reject(new Error('overloaded')),
      windowTokens: 200_000,
      mainWindowTokens: 200_000,
    });
    expect((await failing.summarize(input(bus))).completedWork[0]).toContain('ctx_0123456789abcdef');
    const prose = createLlmSummarizer({
      ...base,
      send: async () => ({ content: [{ type: 'text', text: 'Sorry, no JSON.' }] }),
      windowTokens: 200_000,
      mainWindowTokens: 200_000,
    });
    expect((await prose.summarize(input(bus))).sessionNotes).toEqual(['real note']);
    expect(warnings.length).toBe(4);
    expect(warnings.at(-1)).toMatch(/no JSON object/);
  });

  it('reads replies in Chat Completions and Responses shapes, and rejects malformed ones', async () => {
    const base = {
      adapter: anthropicAdapter,
      model: 'm',
      mainModel: 'm',
      windowTokens: 200_000,
      mainWindowTokens: 200_000,
      counter: anthropicEstimator(),
    };
    const chat = createLlmSummarizer({
      ...base,
      send: async () => ({ choices: [{ message: { content: JSON.stringify(reply) } }] }),
    });
    expect((await chat.summarize(input())).nextSteps).toEqual(['run the test 20 times']);
    const responses = createLlmSummarizer({
      ...base,
      send: async () => ({ output_text: JSON.stringify({ ...reply, userGoal: 'via responses' }) }),
    });
    expect((await responses.summarize(input())).userGoal).toBe('via responses');
    expect(parseSummary(`\`\`\`json\n${JSON.stringify({ userGoal: 'g' })}\n\`\`\``).activeTasks).toEqual([]);
    expect(() => parseSummary('{"userGoal": 3}')).toThrow();
  });
});

/** A long span: the fork's prefix read has to outweigh Sonnet's dearer output. */
const longSpan: Message[] = [
  ...span,
  { role: 'user', content: [{ type: 'text', text: `Also read the build log:\n${'log line: cache ok\n'.repeat(8_000)}` }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Read it.' }] },
];

/** A parent session holding the long span and two kept messages, its last request at t = 0. */
function parentSession(): Session {
  const session = new Session({
    id: 's1',
    model: 'claude-sonnet-4-5',
    global: { system: [{ label: 'persona', text: 'You are a careful coding agent.' }] },
    clock: () => 0,
  });
  for (const message of longSpan) session.append(message);
  session.appendUserText('Now the next file.');
  session.append({ role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }] });
  return session;
}

function forking(fork: 'auto' | 'always' | 'never') {
  const sent: MessageCreateParamsNonStreaming[] = [];
  const bus = new EventBus();
  const routed: Array<CachetEvent<'compaction.summarized'>['payload']> = [];
  bus.on('compaction.summarized', (event: CachetEvent<'compaction.summarized'>) => routed.push(event.payload));
  const summarizer = createLlmSummarizer({
    adapter: anthropicAdapter,
    send: async (body) => {
      sent.push(body);
      return { content: [{ type: 'text', text: JSON.stringify(reply) }] };
    },
    model: 'claude-haiku-4-5',
    windowTokens: 200_000,
    mainModel: 'claude-sonnet-4-5',
    mainWindowTokens: 200_000,
    counter: anthropicEstimator(),
    fork,
  });
  const parent = parentSession();
  const run = (now: number) =>
    summarizer.summarize({ ...input(bus), span: longSpan, now, parent: { session: parent, keptMessages: 2, lastRequestAt: 0 } });
  return { sent, routed, parent, run };
}

describe('LLM summariser forks by default', () => {
  it('forks a warm parent on the main model: the parent prefix byte for byte, both prices in the event', async () => {
    const { sent, routed, parent, run } = forking('auto');
    const summary = await run(60_000);
    expect(summary.decisions).toEqual(['use fake timers']);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.model).toBe('claude-sonnet-4-5');
    const parentBody = anthropicAdapter.convertRequest(assemble(parent)).body;
    expect(JSON.stringify(sent[0]?.system)).toBe(JSON.stringify(parentBody.system));
    expect(JSON.stringify(sent[0]?.messages.slice(0, -1))).toBe(JSON.stringify(parentBody.messages));
    const instruction = JSON.stringify(sent[0]?.messages.at(-1));
    expect(instruction).toContain('except its last 2 messages');
    expect(instruction).toContain('t1 → ctx_0123456789abcdef');
    expect(instruction).not.toContain('cache_control');
    expect(routed).toHaveLength(1);
    expect(routed[0]).toMatchObject({ choice: 'fork', model: 'claude-sonnet-4-5', parentWarm: true });
    expect(routed[0]?.forkCostUsd).toBeLessThan(routed[0]?.freshCostUsd ?? 0);
  });

  it('calls the auxiliary model fresh when the parent cache has expired, and the fresh call writes nothing', async () => {
    const { sent, routed, run } = forking('auto');
    await run(10 * 60_000);
    expect(sent[0]?.model).toBe('claude-haiku-4-5');
    expect(JSON.stringify(sent[0]?.messages)).not.toContain('cache_control');
    expect(routed[0]).toMatchObject({ choice: 'fresh', parentWarm: false });
    expect(routed[0]?.freshCostUsd).toBeLessThan(routed[0]?.forkCostUsd ?? 0);
  });

  it('obeys fork: never and fork: always', async () => {
    const never = forking('never');
    await never.run(60_000);
    expect(never.sent[0]?.model).toBe('claude-haiku-4-5');
    expect(never.routed).toHaveLength(0);
    const always = forking('always');
    await always.run(10 * 60_000);
    expect(always.sent[0]?.model).toBe('claude-sonnet-4-5');
    expect(always.routed[0]).toMatchObject({ choice: 'fork', parentWarm: false });
  });
});
