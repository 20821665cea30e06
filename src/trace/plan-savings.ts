import type { ProxyForwardedPayload } from '../events/catalog.js';

/** What `cachet proxy --plan` saved against the client's own markers, over some exchanges. */
export interface PlanSavings {
  /** Planned exchanges both bodies of which were judged. */
  requests: number;
  /** The client's own bodies, as the cache model judges them. */
  clientCostUsd: number;
  /** The bodies Cachet sent, judged the same way. */
  plannedCostUsd: number;
  /** `clientCostUsd - plannedCostUsd` (negative when the plan cost more). */
  savedUsd: number;
  /** `savedUsd ÷ clientCostUsd`; null when nothing was compared. */
  savedShare: number | null;
  /** Cache read ÷ input of the client's bodies and of the planned ones (null when nothing was compared). */
  clientReadShare: number | null;
  plannedReadShare: number | null;
}

/**
 * Sum the plan comparisons of `proxy.forwarded` events (pass-through exchanges carry none).
 *
 * @example
 * summarizePlanSavings(events.map((event) => event.payload)).savedUsd; // 0.42
 */
export function summarizePlanSavings(payloads: ReadonlyArray<Pick<ProxyForwardedPayload, 'plan'>>): PlanSavings {
  let requests = 0;
  const client = { cost: 0, read: 0, input: 0 };
  const planned = { cost: 0, read: 0, input: 0 };
  for (const { plan } of payloads) {
    if (!plan) continue;
    requests++;
    client.cost += plan.client.costUsd;
    client.read += plan.client.cacheReadTokens;
    client.input += plan.client.inputTokens;
    planned.cost += plan.planned.costUsd;
    planned.read += plan.planned.cacheReadTokens;
    planned.input += plan.planned.inputTokens;
  }
  const share = (part: number, whole: number) => (requests === 0 || whole === 0 ? null : part / whole);
  const savedUsd = client.cost - planned.cost;
  return {
    requests,
    clientCostUsd: client.cost,
    plannedCostUsd: planned.cost,
    savedUsd,
    savedShare: share(savedUsd, client.cost),
    clientReadShare: share(client.read, client.input),
    plannedReadShare: share(planned.read, planned.input),
  };
}
