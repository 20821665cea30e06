import { describe, expect, it } from 'vitest';
import type { CachetEvent, EventType } from '../events/catalog.js';
import { validatePairing } from '../model/validate.js';
import { anthropicAdapter } from '../providers/anthropic/index.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { tailProvider } from '../session/tail-provider.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { isSummaryMessage } from './history-analysis.js';
import { isMasked } from './observation-masking.js';
import { MemoryOffloadStore } from './offload-store.js';
import { createCompactionPipeline } from './pipeline.js';
import { measureRequest } from './request-tokens.js';
import { fileText, fillReadTurns, makeTestSession, toolCall, toolResult } from './test-support.js';

const counter = anthropicEstimator();

function windowFor(session: Session, utilisation: number): number {
  return Math.round(measureRequest(assemble(session), counter).total / utilisation);
}

function setup(utilisation: number, extra: Partial<Parameters<typeof createCompactionPipeline>[0]> = {}, sessionOptions = {}) {
  const harness = makeTestSession(sessionOptions);
  fillReadTurns(harness.session, 12, 120);
  const windowTokens = windowFor(harness.session, utilisation);
  const checkpointStore = new MemoryCheckpointStore();
  const offloadStore = new MemoryOffloadStore();
  const pipeline = createCompactionPipeline({ windowTokens, counter, checkpointStore, offloadStore, ...extra });
  return { ...harness, pipeline, windowTokens, checkpointStore, offloadStore };
}

function ofType<T extends EventType>(events: CachetEvent[], type: T): Array<CachetEvent<T>> {
  return events.filter((event) => event.type === type) as Array<CachetEvent<T>>;
}

describe('hot-cache bypass and cold-cache pruning', () => {
  it('waits while the cache is hot, then masks old results once it has expired', async () => {
    const { session, pipeline, events, now } = setup(0.55, { expectedRemainingRequests: 2, lightTruncateTokens: 800 });
    const first = await pipeline.beforeRequest(session, { now, cacheHot: true });
    expect(first.action).toBe('skipped');
    const skipped = ofType(events, 'compaction.skipped').at(-1);
    expect(skipped?.payload.reason).toBe('hot-cache');
    const planned = ofType(events, 'compaction.planned').at(-1);
    expect(planned?.payload).toMatchObject({ layer: 'light', decision: 'skip', cacheState: 'hot' });
    expect(planned?.payload.tokensToRebill).toBeGreaterThan(planned?.payload.tokensSavedPerRequest ?? Infinity);

    // Six minutes idle: the 5-minute cache has expired, the prefix is written anyway.
    const second = await pipeline.beforeRequest(session, { now: now + 6 * 60_000 });
    expect(second.action).toBe('applied');
    expect(second.cacheHot).toBe(false);
    expect(second.steps).toContain('ttl-pruning');
    expect(second.tokensAfter).toBeLessThan(second.tokensBefore);
    const masked = session.history.flatMap((message) =>
      message.content.filter((block) => block.type === 'tool_result' && isMasked(block)),
    );
    expect(masked.length).toBeGreaterThan(0);
    expect(ofType(events, 'compaction.planned').at(-1)?.payload).toMatchObject({
      decision: 'apply',
      cacheState: 'cold',
      tokensToRebill: 0,
    });
    expect(ofType(events, 'checkpoint.created')).toHaveLength(1);
    expect(ofType(events, 'compaction.applied')[0]?.payload.checkpointId).toBe(second.checkpointId);
  });

  it('compacts in an emergency even with a hot cache', async () => {
    const { session, pipeline, now } = setup(0.93, { expectedRemainingRequests: 0 });
    const decision = await pipeline.beforeRequest(session, { now, cacheHot: true });
    expect(decision.action).toBe('applied');
    expect(decision.layer).toBe('emergency');
    expect(decision.tokensAfter / decision.tokensBefore).toBeLessThan(0.9 * 0.93);
  });

  it('treats a long expected session as paying for a hot rewrite, and a short one as not', async () => {
    const long = setup(0.75, { expectedRemainingRequests: 500 });
    expect((await long.pipeline.beforeRequest(long.session, { now: long.now, cacheHot: true })).action).toBe('applied');
    const short = setup(0.75, { expectedRemainingRequests: 1 });
    expect((await short.pipeline.beforeRequest(short.session, { now: short.now, cacheHot: true })).reason).toMatch(
      /pays back after/,
    );
  });
});

describe('anti-thrashing', () => {
  it('skips a cycle too soon after the last one, and one that saves too little', async () => {
    const { session, pipeline, events, now } = setup(0.75, { minIntervalRequests: 3 });
    expect((await pipeline.beforeRequest(session, { now, cacheHot: false })).action).toBe('applied');
    fillReadTurns(session, 6, 200, 100);
    const again = await pipeline.beforeRequest(session, { now: now + 1_000, cacheHot: false });
    expect(again.action).toBe('skipped');
    expect(ofType(events, 'compaction.skipped').at(-1)?.payload.reason).toBe('thrashing');

    const tiny = setup(0.55, { minSavingShare: 0.9 });
    const decision = await tiny.pipeline.beforeRequest(tiny.session, { now: tiny.now, cacheHot: false });
    expect(decision.action).toBe('skipped');
    expect(ofType(tiny.events, 'compaction.skipped').at(-1)?.payload.reason).toBe('too-little-saving');
  });
});

describe('priorities', () => {
  it('never masks active errors or session notes', async () => {
    const { session, pipeline, now } = setup(0.75, { importantRecentTurns: 2 });
    session.appendUserText('Deploy it');
    session.append(toolCall('e1', 'x', 'deploy'));
    await pipeline.ingest(session, { role: 'user', content: [toolResult('e1', `ERROR-KEEP ${fileText(80)}`, true)] });
    session.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'n1', name: 'session_note', input: { note: 'NOTE-KEEP: db is read-only' } }],
    });
    const noted = await pipeline.runTool(session, session.history.at(-1)?.content[0] as never);
    await pipeline.ingest(session, { role: 'user', content: [noted as never] });
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] });
    fillReadTurns(session, 4, 120, 50);
    const decision = await pipeline.beforeRequest(session, { now, cacheHot: false });
    expect(decision.action).toBe('applied');
    const text = JSON.stringify(assemble(session).messages);
    expect(text).toContain('ERROR-KEEP');
    expect(text).toContain('Noted (note 1): NOTE-KEEP: db is read-only');
    expect(pipeline.notes(session)).toEqual(['NOTE-KEEP: db is read-only']);
  });
});

describe('summary and cache placement after the rewrite', () => {
  it('puts the summary pair right after the session static zone, valid and with breakpoints', async () => {
    const { session, pipeline, now, events } = setup(
      0.95,
      { targetUtilisation: 0.25, tailBudgetShare: 0.1, maskMinTokens: 100_000 },
      { staticPair: true },
    );
    const decision = await pipeline.beforeRequest(session, { now, cacheHot: true });
    expect(decision.action).toBe('applied');
    expect(decision.steps).toContain('summary');
    const history = session.history;
    expect(isSummaryMessage(history[0] as never)).toBe(true);
    const summaryText = JSON.stringify(history[0]);
    for (const title of [
      'User goal',
      'Active tasks',
      'Completed work',
      'Decisions',
      'Errors and resolutions',
      'Files and resources touched',
      'Key facts and data',
      'Constraints and preferences',
      'Open questions',
      'Next steps',
      'Session notes',
    ]) {
      expect(summaryText).toContain(title);
    }
    expect(summaryText).toContain('Instruction 0: look at file_0.ts');
    expect(summaryText).toContain(decision.checkpointId);
    // Invariants: alternation from the static zone on, pairing, no orphans.
    const messages = [...session.sessionMessages, ...history];
    for (let index = 1; index < messages.length; index++) expect(messages[index]?.role).not.toBe(messages[index - 1]?.role);
    validatePairing(messages, 'messages', { allowPendingAtEnd: false });
    // The newest turns are untouched.
    expect(JSON.stringify(history.at(-1))).toContain('Read file_11.ts.');
    // Breakpoints: static end, end of the summary pair, last persisted block.
    const request = assemble(session);
    const persisted = request.blocks.filter((block) => block.zone !== 'tail');
    expect(decision.breakpoints.map((entry) => entry.reason)).toEqual(['static-end', 'summary-end', 'last-persisted']);
    expect(decision.breakpoints.at(-1)?.path).toBe(persisted.at(-1)?.path);
    const pairEnd = history[1]?.role === 'assistant' && JSON.stringify(history[1]).includes('continue from this context') ? 3 : 2;
    expect(decision.breakpoints[1]?.path).toBe(`messages[${pairEnd}].content[0]`);
    // The adapter marks the new prefix at once: the first request after the rewrite writes it.
    const { body } = anthropicAdapter.convertRequest(request, { tokenCounter: counter });
    const marked = JSON.stringify(body.messages).match(/cache_control/g) ?? [];
    expect(marked.length).toBeGreaterThan(0);
    const lastMessage = body.messages.at(-1);
    expect(JSON.stringify(lastMessage)).toContain('cache_control');
    expect(ofType(events, 'history.rewritten')[0]?.payload.reason).toBe(`compaction:${decision.layer}`);
  });

  it('restores the exact session from the checkpoint taken before the rewrite', async () => {
    const { session, pipeline, now, checkpointStore, offloadStore } = setup(0.95, {
      targetUtilisation: 0.25,
      tailBudgetShare: 0.1,
    });
    const before = JSON.stringify(session.toJSON());
    const decision = await pipeline.beforeRequest(session, { now });
    expect(JSON.stringify(session.toJSON())).not.toBe(before);
    const other = createCompactionPipeline({ windowTokens: 10_000, counter, checkpointStore, offloadStore });
    const restored = await other.restoreCheckpoint(decision.checkpointId as string);
    expect(JSON.stringify(restored.toJSON())).toBe(before);
    await expect(other.restoreCheckpoint('ckpt_0000000000000000')).rejects.toThrow(/no checkpoint/);
  });
});

describe('model switch to a thinking model', () => {
  it('back-fills reasoning on tool-call messages at once, whatever the utilisation', async () => {
    const { session, pipeline, now, events } = setup(0.1);
    await pipeline.beforeRequest(session, { now });
    session.setModel('deepseek-reasoner');
    const decision = await pipeline.beforeRequest(session, { now: now + 1_000 });
    expect(decision.action).toBe('applied');
    expect(decision.steps).toEqual(['thinking']);
    expect(decision.cacheHot).toBe(false);
    for (const message of session.history) {
      if (message.role === 'assistant' && message.content.some((block) => block.type === 'tool_use')) {
        expect(message.content[0]).toEqual({ type: 'thinking', thinking: '' });
      }
    }
    expect(ofType(events, 'compaction.planned').at(-1)?.payload.reason).toMatch(/model switched to deepseek-reasoner/);
  });
});

describe('priority order', () => {
  it('masks standard results before important ones and stops at the target', async () => {
    const harness = makeTestSession();
    fillReadTurns(harness.session, 12, 120);
    const total = measureRequest(assemble(harness.session), counter).total;
    // Full compaction, with a target that masking only part of the old results reaches.
    const windowTokens = Math.round(total / 0.75);
    const pipeline = createCompactionPipeline({
      windowTokens,
      counter,
      importantRecentTurns: 3,
      targetUtilisation: 0.6,
      tailBudgetShare: 0.1,
      checkpointStore: new MemoryCheckpointStore(),
      offloadStore: new MemoryOffloadStore(),
    });
    const decision = await pipeline.beforeRequest(harness.session, {
      now: harness.now,
      cacheHot: true,
      remainingRequests: 1_000,
    });
    expect(decision.action).toBe('applied');
    expect(decision.steps).toEqual(['priority']);
    const maskedTurns = harness.session.history.flatMap((message) =>
      message.content.flatMap((block) =>
        block.type === 'tool_result' && isMasked(block) ? [Number(block.toolUseId.slice(1))] : [],
      ),
    );
    // Oldest first, a contiguous run from turn 0, and not everything.
    expect(maskedTurns[0]).toBe(0);
    expect(maskedTurns).toEqual(maskedTurns.map((_, index) => index));
    expect(maskedTurns.length).toBeLessThan(9);
    expect(decision.tokensAfter).toBeLessThanOrEqual(0.6 * windowTokens + 400);
  });
});

describe('synchronous use and late ingestion (the simulator path)', () => {
  it('filters tool outputs appended without ingest before they are first sent, and only those', () => {
    const { session, now, events } = makeTestSession();
    const pipeline = createCompactionPipeline({
      windowTokens: 200_000,
      counter,
      checkpointStore: new MemoryCheckpointStore(),
      offloadStore: new MemoryOffloadStore(),
    });
    session.appendUserText('read the big file');
    session.append(toolCall('t1', 'big.ts'));
    const big = fileText(3_000);
    session.append({ role: 'user', content: [toolResult('t1', big)] });
    const sentBefore = session.history.slice(0, 2);
    const unfilteredTokens = measureRequest(assemble(session, { now }), counter).total;
    const seen = events.length;
    const decision = pipeline.beforeRequestSync(session, { now });
    expect(decision.action).toBe('none');
    const applied = ofType(events, 'compaction.applied');
    expect(applied.map((event) => event.payload.layer)).toEqual(['ingestion']);
    expect(applied[0]?.payload.tokensBefore).toBe(unfilteredTokens);
    expect(applied[0]?.payload.tokensAfter).toBe(measureRequest(decision.request, counter).total);
    expect(applied[0]?.payload.tokensAfter).toBeLessThan(unfilteredTokens);
    expect(events.slice(seen).map((event) => event.type)).toEqual([
      'checkpoint.created',
      'context.offloaded',
      'history.rewritten',
      'compaction.applied',
    ]);
    expect(session.history.slice(0, 2)).toEqual(sentBefore);
    const kept = JSON.stringify(session.history[2]);
    expect(kept).toContain('output truncated');
    expect(kept.length).toBeLessThan(big.length / 4);
    // Once sent, a message is never filtered again by this path.
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    pipeline.beforeRequestSync(session, { now: now + 1_000 });
    expect(ofType(events, 'compaction.applied')).toHaveLength(1);
  });

  it('refuses to run synchronously on stores that answer asynchronously', () => {
    const { session, now } = makeTestSession();
    // A store that answers asynchronously, like FileOffloadStore.
    const asyncStore = { put: async () => undefined, get: async () => null, list: async () => [] };
    const pipeline = createCompactionPipeline({
      windowTokens: 200_000,
      counter,
      checkpointStore: new MemoryCheckpointStore(),
      offloadStore: asyncStore,
    });
    session.appendUserText('read');
    session.append(toolCall('t1', 'big.ts'));
    session.append({ role: 'user', content: [toolResult('t1', fileText(3_000))] });
    expect(() => pipeline.beforeRequestSync(session, { now })).toThrow(/answered asynchronously/);
  });
});

describe('the request to send', () => {
  function countingSession(turns: number) {
    let renders = 0;
    const now = 1_767_225_600_000;
    const session = new Session({
      id: 'tail-renders',
      model: 'claude-sonnet-4-5',
      global: { system: [{ label: 'persona', text: 'You are a careful coding agent.' }] },
      tail: [
        tailProvider('time', (context) => {
          renders++;
          return `[current time] ${context.now}`;
        }),
      ],
      clock: () => now,
    });
    fillReadTurns(session, turns, 120);
    return { session, now, renders: () => renders };
  }

  it('is assembled once: tail providers render once per request when the decision does nothing', async () => {
    const { session, now, renders } = countingSession(2);
    const pipeline = createCompactionPipeline({
      windowTokens: 1_000_000,
      counter,
      checkpointStore: new MemoryCheckpointStore(),
      offloadStore: new MemoryOffloadStore(),
    });
    const decision = await pipeline.beforeRequest(session, { now });
    expect(decision.action).toBe('none');
    expect(renders()).toBe(1);
    expect(decision.request.tail.items.map((item) => item.text)).toEqual([`[current time] ${now}`]);
    expect(decision.request).toEqual(assemble(session, { now }));
    expect(decision.tokensBefore).toBe(measureRequest(decision.request, counter).total);
  });

  it('is the rewritten request after compaction', async () => {
    const { session, now } = countingSession(12);
    const windowTokens = windowFor(session, 0.95);
    const pipeline = createCompactionPipeline({
      windowTokens,
      counter,
      checkpointStore: new MemoryCheckpointStore(),
      offloadStore: new MemoryOffloadStore(),
      targetUtilisation: 0.25,
      tailBudgetShare: 0.1,
    });
    const decision = await pipeline.beforeRequest(session, { now });
    expect(decision.action).toBe('applied');
    expect(decision.request.messages).toEqual(assemble(session, { now }).messages);
    expect(decision.tokensAfter).toBe(measureRequest(decision.request, counter).total);
  });
});
