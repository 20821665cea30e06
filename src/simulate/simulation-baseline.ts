import { createCacheModel } from '../cache/models/create-cache-model.js';
import { hindsightOracle, type OracleResult } from '../oracle/hindsight-oracle.js';
import { oracleRulesFor } from '../oracle/oracle-rules.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import { sharedCounter } from '../runtime/prepare-request.js';
import type { Workload } from '../workloads/workload.js';
import { cachetStrategy } from './cachet-strategy.js';
import { hindsightRunOf } from './hindsight-run-of.js';
import { IdealCacheReads } from './ideal-cache-read.js';
import { adapterFor } from './provider-adapters.js';
import { replyFor } from './reply-for.js';
import { sideRequestBody } from './side-request-body.js';
import type { BuiltRequest } from './strategy.js';

/**
 * What a workload's simulation measures against, the same for every strategy on one provider
 * and model: the most any layout could read per request (the physical limit) and the hindsight
 * oracle's best run. Compute it once and pass it to `simulateWorkload` for each strategy.
 */
export interface SimulationBaseline {
  provider: ProviderId;
  model: string;
  /** Per request, in workload order: cache-read tokens of the reference layout (the ideal). */
  idealCacheReadTokens: number[];
  oracle: OracleResult;
}

/**
 * Measure a workload's baseline on one provider and model.
 *
 * @example
 * const baseline = simulationBaseline(workload, 'anthropic', 'claude-sonnet-5');
 * for (const strategy of STRATEGY_NAMES) simulateWorkload(workload, { strategy, baseline });
 */
export function simulationBaseline(workload: Workload, provider: ProviderId, model: string): SimulationBaseline {
  const sessionId = `${workload.name}/baseline/${provider}`;
  // The reference layout for the ideal: Cachet's zones without tail or padding, never on a bus.
  const reference = cachetStrategy(workload, {
    provider,
    model,
    sessionId: `${sessionId}/reference`,
    options: { padding: 'never', ttl: '5m' },
  });
  const adapter = adapterFor(provider);
  const entry = providerEntry(provider);
  const local = entry.route(model).rules === 'local';
  const counter = sharedCounter(provider, model);
  const ideal = new IdealCacheReads(provider, model, counter);
  // Local engines reuse rendered tokens (chat template + tokenizer), so their ideal is measured
  // in the same tokens: the engine's own model judging the reference bodies with their replies.
  const localReference = local ? createCacheModel(provider) : null;
  // The wire's own framing, which every layout pays (message headers; on a local engine the chat
  // template's tool preamble and tool-call / tool-response wrappers): the oracle is told the
  // cache model's count of the plainest layout of the same content — Cachet's zones with every
  // tail item request-scoped (so history holds only the workload's content), without padding.
  // Only where every layout pays the same framing; elsewhere the oracle counts content alone
  // and the framing pass is not run.
  const framing = oracleRulesFor(provider, model).fixedFraming
    ? {
        reference: cachetStrategy(workload, {
          provider,
          model,
          sessionId: `${sessionId}/framing`,
          options: { padding: 'never', ttl: '5m', tailScope: 'request' },
        }),
        model: createCacheModel(provider, local ? {} : { counter }),
        tokens: [] as number[],
        replyTokens: [] as number[],
        readTokens: [] as number[],
      }
    : null;
  // A reference request's body without its tail, with the same tool layout as Cachet's own bodies.
  const persistedBodyOf = (built: BuiltRequest): unknown =>
    adapter.convertRequest(
      { ...built.canonical, tail: { items: [], inToolLoop: built.canonical.tail.inToolLoop } },
      entry.planOptions({ padding: 'never', ...built.deferredTools }),
    ).body;
  const idealCacheReadTokens: number[] = [];
  // The reference's last persisted bodies: what a subagent call forks.
  let parentBodies: { reference: unknown; plain: unknown } = { reference: null, plain: null };
  for (const turn of workload.turns) {
    reference.beginTurn(turn);
    framing?.reference.beginTurn(turn);
    for (const step of turn.steps) {
      if (step.subagentTask !== null) {
        const fork = (body: unknown) => sideRequestBody(body, entry.wire, step.subagentTask as string) ?? body;
        idealCacheReadTokens.push(ideal.next(fork(parentBodies.reference), step.at));
        framing?.tokens.push(framing.model.judge(fork(parentBodies.plain), { at: step.at }).inputTokens);
        framing?.replyTokens.push(0);
        framing?.readTokens.push(0);
        continue;
      }
      const referenceRequest = reference.request(turn, step);
      const referenceBody = persistedBodyOf(referenceRequest);
      idealCacheReadTokens.push(
        localReference
          ? localReference.judge(referenceBody, { at: step.at, reply: replyFor(adapter, referenceRequest, step) }).cacheReadTokens
          : ideal.next(referenceBody, step.at),
      );
      parentBodies = { reference: referenceBody, plain: null };
      if (framing) {
        const plainRequest = framing.reference.request(turn, step);
        const plainBody = persistedBodyOf(plainRequest);
        const verdict = framing.model.judge(plainBody, {
          at: step.at,
          ...(local ? { reply: replyFor(adapter, plainRequest, step) } : {}),
        });
        framing.tokens.push(verdict.inputTokens);
        framing.replyTokens.push('replyTokens' in verdict && typeof verdict.replyTokens === 'number' ? verdict.replyTokens : 0);
        framing.readTokens.push(verdict.cacheReadTokens);
        parentBodies.plain = plainBody;
      }
      reference.endStep(turn, step);
      framing?.reference.endStep(turn, step);
    }
  }
  const run = hindsightRunOf(workload, {
    provider,
    model,
    counter,
    ...(framing ? { wireTokens: framing.tokens, ...(local ? { replyTokens: replyReadBack(framing) } : {}) } : {}),
  });
  const oracle = hindsightOracle(run, (requestModel) => oracleRulesFor(provider, requestModel));
  return { provider, model, idealCacheReadTokens, oracle };
}

/**
 * Per request of the plain layout (no tail: each prompt extends the previous one), the tokens of
 * its reply the next request reads back from the slot: all of the reply the engine kept when the
 * next prompt repeats it, a few framing tokens when it does not (Llama 3.x: the parallel calls
 * the slot holds are sent one per message). The last request's reply is all kept.
 */
function replyReadBack(framing: { tokens: number[]; replyTokens: number[]; readTokens: number[] }): number[] {
  return framing.replyTokens.map((kept, index) => {
    const nextRead = framing.readTokens[index + 1];
    if (nextRead === undefined) return kept;
    return Math.max(0, Math.min(kept, nextRead - (framing.tokens[index] ?? 0)));
  });
}
