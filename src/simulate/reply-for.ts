import type { CanonicalRequest } from '../model/request.js';
import type { WorkloadStep } from '../workloads/workload.js';
import type { adapterFor } from './provider-adapters.js';

/**
 * The assistant message a request's step answered with, as the adapter writes it into the next
 * request's history (the tail left out): what a local engine generated and keeps in its slot.
 */
export function replyFor(
  adapter: ReturnType<typeof adapterFor>,
  built: { canonical: CanonicalRequest },
  step: WorkloadStep,
): Record<string, unknown> | undefined {
  const withReply = {
    ...built.canonical,
    messages: [...built.canonical.messages, { role: 'assistant' as const, content: step.reply }],
    tail: { items: [], inToolLoop: false },
    blocks: [],
  };
  const body = adapter.convertRequest(withReply, {}).body as { messages?: Array<Record<string, unknown>> };
  return body.messages?.at(-1);
}
