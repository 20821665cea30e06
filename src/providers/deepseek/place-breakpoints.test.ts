import { describe, expect, it } from 'vitest';
import { createDeepSeekCacheModel } from '../../cache/models/deepseek-cache-model.js';
import { words } from '../../cache/test-support/fixtures.js';
import { simulateWorkload } from '../../simulate/simulate-workload.js';
import { loadWorkload } from '../../workloads/load-workload.js';
import { buildChatMessages, type ChatDialect } from '../openai-chat/chat-messages.js';
import { fixtureSession } from '../openai-chat/test-support/fixtures.js';
import { convertToDeepSeek } from './convert-request.js';
import { DEEPSEEK_DIALECT } from './place-breakpoints.js';

const MINUTE = 60_000;

/**
 * Cache reads, request by request, of a six-turn chat whose tail (time, recall) is re-sent with
 * every request and never persisted, written by `write` and judged by DeepSeek's rules.
 */
function readsOf(write: (request: ReturnType<ReturnType<typeof fixtureSession>['request']>) => unknown) {
  const fixture = fixtureSession('deepseek-chat', { tail: true });
  const model = createDeepSeekCacheModel();
  const reads: number[] = [];
  for (let turn = 0; turn < 6; turn++) {
    // The first question carries a long document: the stable body every later request shares.
    fixture.session.appendUserText(words(turn === 0 ? 2000 : 120, `question${turn}`));
    reads.push(model.judge(write(fixture.request()), { at: turn * MINUTE }).cacheReadTokens);
    fixture.session.append({ role: 'assistant', content: [{ type: 'text', text: words(80, `answer${turn}`) }] });
  }
  return reads;
}

describe('DeepSeek tail placement, judged by the whole-unit cache model', () => {
  it('a request-scoped tail in parts of its own lets the common-prefix units end right before it; fused into the user string, they end a message earlier', () => {
    const parts = readsOf((request) => convertToDeepSeek(request).body);
    const fusedDialect: ChatDialect = { ...DEEPSEEK_DIALECT, contentForm: 'string' };
    const fused = readsOf((request) => ({ model: request.model, messages: buildChatMessages(request, fusedDialect).messages }));
    // Request 1 finds no whole unit either way: both units of request 0 end after its tail.
    expect(parts[1]).toBe(0);
    expect(fused[1]).toBe(0);
    // From request 2 on, the parts layout reads the unit that ends with the previous user's own text.
    for (let index = 2; index < 6; index++) expect(parts[index]!).toBeGreaterThan(fused[index]!);
    const total = (reads: number[]) => reads.reduce((sum, read) => sum + read, 0);
    expect(total(parts)).toBeGreaterThan(total(fused));
  });

  it('on the bundled DeepSeek workload, the chosen turn scope reads every request’s whole physical limit; a per-request tail reads less', async () => {
    const workload = await loadWorkload('data-analyst-deepseek');
    const auto = simulateWorkload(workload, { strategy: 'cachet' });
    const perRequest = simulateWorkload(workload, { strategy: 'cachet', cachet: { tailScope: 'request' } });
    for (const request of auto.requests) expect(request.cacheReadTokens).toBe(request.idealCacheReadTokens);
    expect(auto.totals.efficiency).toBe(1);
    expect(perRequest.totals.efficiency).toBeLessThan(0.9);
    expect(auto.totals.costUsd).toBeLessThan(perRequest.totals.costUsd);
    for (const strategy of ['naive', 'markers', 'pi', 'ai-sdk', 'langchain'] as const) {
      expect(auto.totals.costUsd).toBeLessThanOrEqual(simulateWorkload(workload, { strategy }).totals.costUsd);
    }
  });
});
