import type { EventBus } from '../events/event-bus.js';
import type { ProviderId } from '../providers/adapter.js';
import { Session } from '../session/session.js';
import type { Workload } from '../workloads/workload.js';
import { sessionStaticText, skillIndexText } from './workload-content.js';

/**
 * The session a harness-style strategy (naive, markers, the peer libraries) keeps: the
 * workload's tools and persona as one system prompt, on the simulator's clock.
 */
export function harnessSession(
  strategy: string,
  workload: Workload,
  context: { provider: ProviderId; model: string; sessionId: string; bus?: EventBus },
  clock: () => number,
): Session {
  return new Session({
    id: context.sessionId,
    model: context.model,
    global: { tools: workload.tools, system: [{ label: 'system-prompt', text: workload.persona }] },
    params: { maxTokens: workload.maxTokens },
    bus: context.bus,
    clock,
    labels: { provider: context.provider, strategy },
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
