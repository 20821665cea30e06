import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import { simulateWorkload } from '../../../simulate/simulate-workload.js';
import type { loadWorkload } from '../../../workloads/load-workload.js';
import { createLocalEngineCacheModel, renderLocalEnginePrompt } from '../local-engine-cache-model.js';
import type { EngineModel, WireBody, WireMessage } from './llama-cpp-engine.js';

/**
 * The comparison the real-engine tests make: a session replayed on llama.cpp (one context
 * sequence, as llama-server's slot keeps it) and through Cachet's local cache model, request by
 * request — prompt text, tokens and reuse.
 */

export interface Exchange {
  body: WireBody & { model: string };
  reply: WireMessage;
}

/** Per workload: requests, exact ones, rejected ones, processed tokens, prompt bytes equal. */
export interface Report {
  requests: number;
  rejectedByBoth: number;
  exact: number;
  textEqual: number;
  tokensEqual: number;
  processedMeasured: number;
  processedPredicted: number;
  firstMismatch: string | null;
  rejection: string | null;
}

/** Replay one session on the engine (one context sequence) and through Cachet's cache model. */
export async function compare(engine: EngineModel, exchanges: readonly Exchange[]): Promise<Report> {
  const at = Date.now();
  // The tiny GGUFs are plain llama graphs: full attention, whatever the family's sliding window.
  const cacheModel = createLocalEngineCacheModel({ slidingWindow: 0 });
  const rendered = exchanges.map(({ body }) => engine.prompt(body));
  const longest = Math.max(64, ...rendered.map((prompt) => ('tokens' in prompt ? prompt.tokens.length : 0)));
  const context = await engine.model.createContext({ contextSize: 2 ** Math.ceil(Math.log2(longest + 512)), threads: 1 });
  const sequence = context.getSequence();
  const report: Report = {
    requests: exchanges.length,
    rejectedByBoth: 0,
    exact: 0,
    textEqual: 0,
    tokensEqual: 0,
    processedMeasured: 0,
    processedPredicted: 0,
    firstMismatch: null,
    rejection: null,
  };
  const mismatch = (index: number, what: string) => {
    report.firstMismatch ??= `request ${index}: ${what}`;
  };
  try {
    for (const [index, { body, reply }] of exchanges.entries()) {
      const enginePrompt = rendered[index]!;
      let cachet: { text: string; tokens: number[] } | null;
      let predicted: { cacheReadTokens: number; inputTokens: number } | null;
      try {
        cachet = renderLocalEnginePrompt(body, at);
        predicted = cacheModel.judge(body, { at, reply });
      } catch (error) {
        cachet = null;
        predicted = null;
        report.rejection ??= error instanceof Error ? error.message : String(error);
      }
      if ('rejected' in enginePrompt || !cachet || !predicted) {
        if ('rejected' in enginePrompt && !cachet) report.rejectedByBoth++;
        else mismatch(index, 'rejected' in enginePrompt ? `engine rejects: ${enginePrompt.rejected}` : 'Cachet rejects');
        continue;
      }
      const measured = await evaluate(sequence, enginePrompt.tokens, engine.replyTokens(body, reply));
      if (cachet.text === enginePrompt.text) report.textEqual++;
      else mismatch(index, `text differs at ${firstDifference(cachet.text, enginePrompt.text)}`);
      if (cachet.tokens.join() === enginePrompt.tokens.join()) report.tokensEqual++;
      if (predicted.cacheReadTokens === measured && predicted.inputTokens === enginePrompt.tokens.length) report.exact++;
      else mismatch(index, `reuse predicted ${predicted.cacheReadTokens}, measured ${measured}`);
      report.processedMeasured += enginePrompt.tokens.length - measured;
      report.processedPredicted += predicted.inputTokens - predicted.cacheReadTokens;
    }
  } finally {
    await context.dispose();
  }
  return report;
}

/**
 * Feed a prompt to the sequence the way llama-server's slot does: keep the longest common prefix
 * with its state (at least the last prompt token is evaluated again, for its logits), count the
 * evaluated tokens, then feed the reply the model would generate. Returns the reused tokens.
 */
async function evaluate(sequence: LlamaContextSequence, prompt: number[], reply: number[]): Promise<number> {
  const tokens = prompt as Token[];
  await sequence.adaptStateToTokens(tokens, false);
  const kept = Math.min(sequence.nextTokenIndex, prompt.length - 1);
  if (kept < sequence.nextTokenIndex) await sequence.adaptStateToTokens(tokens.slice(0, kept), false);
  const before = sequence.tokenMeter.usedInputTokens;
  await sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(sequence.nextTokenIndex));
  const reused = prompt.length - (sequence.tokenMeter.usedInputTokens - before);
  if (reply.length > 0) await sequence.evaluateWithoutGeneratingNewTokens(reply as Token[]);
  return reused;
}

function firstDifference(left: string, right: string): string {
  let index = 0;
  while (index < left.length && left[index] === right[index]) index++;
  return `char ${index}: Cachet ${JSON.stringify(left.slice(index, index + 40))}, engine ${JSON.stringify(right.slice(index, index + 40))}`;
}

export function workloadExchanges(model: string, workload: Awaited<ReturnType<typeof loadWorkload>>): Exchange[] {
  const exchanges: Exchange[] = [];
  simulateWorkload(workload, {
    model,
    strategy: 'cachet',
    onBody: (body, { reply }) => {
      if (!reply) throw new Error('the simulator gives local engines the reply each request generated');
      exchanges.push({ body: body as Exchange['body'], reply: reply as WireMessage });
    },
  });
  return exchanges;
}
