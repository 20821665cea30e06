import type { SessionLabels } from '../events/catalog.js';
import type { EventBus } from '../events/event-bus.js';
import type { CanonicalRequest } from '../model/request.js';
import type { ConversionResult, ProviderId } from '../providers/adapter.js';
import type { BlockDeltaTracker } from '../runtime/block-delta.js';
import { type sharedCounter, zoneTokensOf } from '../runtime/prepare-request.js';
import { Session } from '../session/session.js';
import type { Workload, WorkloadStep, WorkloadTurn } from '../workloads/workload.js';
import type { BuiltRequest } from './strategy.js';
import { sessionStaticText, skillIndexText } from './workload-content.js';

/**
 * The session a harness-style strategy (naive, markers, the peer libraries) keeps: the
 * workload's tools and persona as one system prompt, on the simulator's clock.
 */
export function harnessSession(
  strategy: string,
  workload: Workload,
  context: { provider: ProviderId; model: string; sessionId: string; bus?: EventBus; labels?: SessionLabels },
  clock: () => number,
): Session {
  return new Session({
    id: context.sessionId,
    model: context.model,
    global: { tools: workload.tools, system: [{ label: 'system-prompt', text: workload.persona }] },
    params: { maxTokens: workload.maxTokens },
    bus: context.bus,
    clock,
    labels: { ...context.labels, provider: context.provider, strategy },
  });
}

/** The static text a harness puts in its system prompt: persona, guidelines, skill index, project text. */
export function harnessStaticText(workload: Workload, extra: ReadonlyArray<string | null> = []): string {
  return [
    workload.persona.trimEnd(),
    workload.guidelines?.trimEnd(),
    skillIndexText(workload),
    sessionStaticText(workload),
    ...extra,
  ]
    .filter((part): part is string => Boolean(part))
    .join('\n\n');
}

/**
 * A harness-style request as the simulator takes it, with its `request.assembled` event
 * published on the session's bus. `body` is the wire body the harness sends (the adapter's,
 * or with the harness's own markers placed on it).
 */
export function harnessRequest(
  session: Session,
  context: { provider: ProviderId; counter: ReturnType<typeof sharedCounter>; blockDeltas: BlockDeltaTracker },
  position: { turn: WorkloadTurn; step: WorkloadStep },
  canonical: CanonicalRequest,
  converted: ConversionResult<unknown>,
  body: unknown = converted.body,
): BuiltRequest {
  const zoneTokens = zoneTokensOf(canonical, context.counter);
  session.bus?.emit('request.assembled', session.id, position.step.at, {
    turn: position.turn.turn,
    step: position.step.step,
    provider: context.provider,
    model: canonical.model,
    zoneTokens,
    ...context.blockDeltas.next(session, canonical),
    breakpoints: converted.metadata.breakpoints,
    padding: null,
    warnings: converted.metadata.warnings,
  });
  return { body, canonical, metadata: converted.metadata, zoneTokens, ttlReason: null };
}
