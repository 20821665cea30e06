import { describe, expect, it } from 'vitest';
import { assemble } from '../session/assemble.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { createExtractiveSummarizer } from './extractive-summarizer.js';
import { MemoryOffloadStore } from './offload-store.js';
import { createCompactionPipeline } from './pipeline.js';
import { measureRequest } from './request-tokens.js';
import type { Summarizer } from './summarizer.js';
import { buildLogParent, buildLogSpan, recordingSummarizer, summaryInput } from './test-support/summary-parent.js';
import { fileText, fillReadTurns, makeTestSession, toolCall, toolResult } from './test-support.js';

const counter = anthropicEstimator();

/**
 * A warm parent (its last request just now) whose span is a ~31k-token build log, and whose
 * newest message, a ~10k-token file read, arrived after that request: no cache entry holds it.
 */
function run(sentHistoryLength: number | undefined) {
  const span = buildLogSpan();
  const parent = buildLogParent('unsent-parent', span);
  parent.append(toolCall('t1', 'src/big.ts'));
  parent.append({ role: 'user', content: [toolResult('t1', fileText(900))] });
  const { summarizer, bus, summarized: routes, sent } = recordingSummarizer({ counter });
  const summary = summarizer.summarize(
    summaryInput('unsent-parent', span, {
      bus,
      now: 0,
      parent: {
        session: parent,
        keptMessages: 3,
        lastRequestAt: 0,
        ...(sentHistoryLength === undefined ? {} : { sentHistoryLength }),
      },
    }),
  );
  const unsentTokens = counter.countBlock(toolResult('t1', fileText(900)));
  return { summary, routes, sent, unsentTokens };
}

describe('the LLM summariser’s fork price and messages no request has sent', () => {
  it('prices the unsent newest messages as a write, not a read, and calls Haiku fresh when that is cheaper', async () => {
    const { summary, routes, sent, unsentTokens } = run(4);
    await summary;
    const event = routes[0];
    expect(unsentTokens).toBeGreaterThan(9_000);
    expect(event?.parentWarm).toBe(true);
    // Sonnet 4.5: the sent prefix read at $0.30/MTok, the unsent result written at $3.75/MTok.
    const instructionAndRest = (event?.forkInputCostUsd ?? 0) - (event?.prefixTokens ?? 0) * 0.3e-6 - unsentTokens * 3.45e-6;
    expect(instructionAndRest).toBeGreaterThan(0);
    expect(instructionAndRest).toBeLessThan(0.005);
    expect(event?.choice).toBe('fresh');
    expect(sent.map((body) => body.model)).toEqual(['claude-haiku-4-5']);
  });

  it('forks the same parent when its last request carried every message (all of it read)', async () => {
    const { summary, routes, sent } = run(undefined);
    await summary;
    expect(routes[0]?.choice).toBe('fork');
    expect(sent.map((body) => body.model)).toEqual(['claude-sonnet-4-5']);
  });
});

describe('the pipeline tells the summariser what its parent’s last request carried', () => {
  it('passes sentHistoryLength: the history length when the previous request was planned', async () => {
    const harness = makeTestSession();
    fillReadTurns(harness.session, 12, 120);
    const seen: Array<{ sent: number | undefined; length: number }> = [];
    const extractive = createExtractiveSummarizer();
    const summarizer: Summarizer = {
      name: 'capture',
      summarize: (input) => {
        seen.push({ sent: input.parent?.sentHistoryLength, length: input.parent?.session.history.length ?? -1 });
        return extractive.summarize(input);
      },
    };
    const total = measureRequest(assemble(harness.session), counter).total;
    const pipeline = createCompactionPipeline({
      windowTokens: Math.round(total / 0.3),
      counter,
      summarizer,
      checkpointStore: new MemoryCheckpointStore(),
      offloadStore: new MemoryOffloadStore(),
      targetUtilisation: 0.25,
      tailBudgetShare: 0.1,
      maskMinTokens: 100_000,
    });
    expect((await pipeline.beforeRequest(harness.session, { now: harness.now })).action).toBe('none');
    const sentLength = harness.session.history.length;
    fillReadTurns(harness.session, 30, 120, 12);
    const second = await pipeline.beforeRequest(harness.session, { now: harness.now + 1_000, cacheHot: true });
    expect(second.steps).toContain('summary');
    expect(seen).toEqual([{ sent: sentLength, length: sentLength + 30 * 4 }]);
  });
});
