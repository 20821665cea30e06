import { costOf } from '../cache/cost.js';
import type { CacheModel } from '../cache/models/cache-verdict.js';
import type { ThinkingConfig } from '../model/request.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import { prewarmingParamsReason, prewarmingUnsupportedReason } from '../runtime/prewarming.js';
import { PING_TEXT, sideRequestBody } from './side-request-body.js';
import type { SimulatedPing } from './simulation-totals.js';
import type { IdleContext, KeepAliveSchedule } from './strategy.js';

interface Pending {
  times: number[];
  expectedSavingUsd: number | null;
  /** Pings sent in this idle period so far, and their cost. */
  sent: number;
  spentUsd: number;
  /** The request the pings repeat, and the ping's body once the first ping is due (null: this wire cannot fork). */
  parentBody: unknown;
  body: Record<string, unknown> | null | undefined;
  model: string;
  turn: number;
  step: number;
}

/** A ping just sent, as the `cache.keepalive` event reports it. */
export interface SentPing {
  ping: SimulatedPing;
  model: string;
  /** 1 for the idle period's first ping. */
  index: number;
  /** The idle period's pings so far, this one included, USD. */
  spentUsd: number;
  expectedSavingUsd: number | null;
}

/**
 * The keep-alive pings a strategy scheduled after its last request, sent as simulated time
 * passes: each one due before the next request is a pre-warm request (`max_tokens: 0`) on that
 * request's exact body, judged by the provider's cache model (so it reads and refreshes the
 * live entries, or writes where they expired) and priced at the model's rates. The next request
 * of the strategy's own session cancels the rest; a subagent's side request does not (the parent
 * is still waiting).
 */
export class IdlePings {
  private pending: Pending | null = null;
  readonly sent: SimulatedPing[] = [];

  constructor(
    private readonly cache: Pick<CacheModel, 'judge'>,
    private readonly provider: ProviderId,
    /** Told of each ping sent (the strategy's entries were refreshed at `ping.at`). */
    private readonly onSent: (sent: SentPing) => void = () => {},
  ) {}

  schedule(
    schedule: { times: readonly number[]; expectedSavingUsd: number | null },
    parent: { body: unknown; model: string; turn: number; step: number; thinking?: ThinkingConfig | undefined },
  ): void {
    this.pending = pingable(this.provider, schedule, parent.model, parent.thinking)
      ? {
          times: [...schedule.times],
          expectedSavingUsd: schedule.expectedSavingUsd,
          sent: 0,
          spentUsd: 0,
          parentBody: parent.body,
          body: undefined,
          model: parent.model,
          turn: parent.turn,
          step: parent.step,
        }
      : null;
  }

  /** Send the pings due before `at`; with `cancelRest`, drop the others (the session moved on). */
  sendBefore(at: number, cancelRest: boolean): void {
    const pending = this.pending;
    if (!pending) return;
    while (firstDueBefore(pending.times, at)) {
      // Built when the first ping is due, not per request: most idle periods end before one is,
      // and the body copies the whole history.
      pending.body ??= sideRequestBody(pending.parentBody, providerEntry(this.provider).wire, PING_TEXT, { maxTokens: 0 });
      if (pending.body === null) {
        this.pending = null;
        return;
      }
      const pingAt = pending.times.shift() as number;
      const verdict = this.cache.judge(pending.body, { at: pingAt });
      const ping: SimulatedPing = {
        afterTurn: pending.turn,
        afterStep: pending.step,
        at: pingAt,
        inputTokens: verdict.inputTokens,
        cacheReadTokens: verdict.cacheReadTokens,
        cacheWriteTokens: verdict.cacheWriteTokens,
        costUsd: costOf(verdict.usage, this.provider, pending.model).costUsd,
      };
      this.sent.push(ping);
      pending.sent += 1;
      pending.spentUsd += ping.costUsd;
      const { model, spentUsd, expectedSavingUsd } = pending;
      this.onSent({ ping, model, index: pending.sent, spentUsd, expectedSavingUsd });
    }
    if (cancelRest) this.pending = null;
  }
}

/**
 * Only a model with a pre-warm request can be pinged (elsewhere the strategy's pings are not
 * sent), and only a request without extended thinking: Anthropic refuses `max_tokens: 0` with it
 * (and Aider's `max_tokens: 1` is below any thinking budget), and a ping without the parent's
 * thinking setting would not read its messages cache (`keepWarmBody` refuses such sessions).
 */
function pingable(
  provider: ProviderId,
  schedule: { times: readonly number[] },
  model: string,
  thinking: ThinkingConfig | undefined,
): boolean {
  return (
    schedule.times.length > 0 &&
    prewarmingUnsupportedReason(provider, model) === null &&
    prewarmingParamsReason({ thinking }) === null
  );
}

function firstDueBefore(times: readonly number[], at: number): boolean {
  return times.length > 0 && (times[0] as number) < at;
}

/**
 * Would a pinging strategy send a ping on this run? Fed the same calls as an `IdlePings`
 * (`schedule` after each request with what the pinging strategy would plan, `sendBefore` before
 * the next), it decides as `IdlePings` does, without sending anything. Run beside the pinging
 * design's base strategy (the same requests: see `KEEP_ALIVE_BASE`): while no ping fires the
 * two runs are the same, so when `fired` stays false the design's run is the base's run.
 */
export class PingProbe {
  private pending: number[] | null = null;
  /** True once a ping would have been sent. */
  fired = false;

  constructor(
    private readonly provider: ProviderId,
    /** The pinging strategy's schedule after a request (`keepAliveSchedule`). */
    readonly scheduleAfter: (idle: IdleContext) => KeepAliveSchedule,
  ) {}

  schedule(idle: IdleContext, parentModel: string, thinking?: ThinkingConfig): void {
    const schedule = this.scheduleAfter(idle);
    this.pending = pingable(this.provider, schedule, parentModel, thinking) ? [...schedule.times] : null;
  }

  sendBefore(at: number, cancelRest: boolean): void {
    if (this.pending && firstDueBefore(this.pending, at)) this.fired = true;
    if (cancelRest) this.pending = null;
  }
}
