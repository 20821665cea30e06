import type { CacheBreak } from '../../cache/break/break-detector.js';
import type { BreakpointRecord } from '../../events/catalog.js';
import type { EventBus } from '../../events/event-bus.js';
import type { AdapterWarning } from '../../model/adapter-warning.js';
import type { Usage } from '../../model/usage.js';
import type { ProviderId } from '../../providers/provider-id.js';
import type { HookReporter } from './contained-hooks.js';
import { type ConversationState, sharedBlockCount } from './conversation-store.js';
import type { ForkMatch } from './fork-recognition.js';
import type { PromptPlan } from './plan-prompt-breakpoints.js';
import { publishUsage } from './publish-usage.js';

/** Where a drop-in's call stands in its conversation (the `info` fields every drop-in shares). */
export interface CallPosition {
  conversationId: string;
  model: string;
  turn: number;
  step: number;
}

/**
 * After an Anthropic call was planned (AI SDK and LangChain middlewares): the conversation's
 * lookback state and block hashes move on — unless the call is a `branch` fork of its own
 * conversation, which must not become its state — and `request.assembled` is published.
 */
export function recordPlannedCall(input: {
  state: ConversationState;
  planned: PromptPlan;
  fork: ForkMatch | null;
  bus: EventBus | undefined;
  at: number;
  call: CallPosition;
  breakpoints: BreakpointRecord[];
  warnings: AdapterWarning[];
}): void {
  const { state, planned, call } = input;
  const ownState = input.fork?.rule !== 'branch';
  if (ownState) state.previous = planned.plan.cacheState;
  if (input.bus) {
    const shared = sharedBlockCount(state.blocks, planned.blocks);
    input.bus.emit('request.assembled', call.conversationId, input.at, {
      turn: call.turn,
      step: call.step,
      provider: 'anthropic',
      model: call.model,
      zoneTokens: planned.zoneTokens,
      prefixHash: planned.blocks.at(-1)?.hash ?? '',
      blockCount: planned.blocks.length,
      sharedBlocks: shared,
      blockHashes: planned.blocks.slice(shared),
      breakpoints: input.breakpoints,
      padding: null,
      warnings: input.warnings,
    });
  }
  if (ownState) state.blocks = planned.blocks;
}

/**
 * A finished call, contained (a problem here never reaches the host library): its usage read
 * and checked, its wire body through the conversation's break detector — the break goes out
 * before the usage, so a span exporter sees it while the request is open — then `onUsage` and
 * `usage.recorded`. `readBody` gives the wire body, read inside the guard (parsing or building it
 * may fail); null: nothing to detect on (an OpenAI call seen only as a view).
 */
export function observeFinishedCall<Info extends CallPosition>(input: {
  state: ConversationState;
  reporter: HookReporter;
  bus: EventBus | undefined;
  /** When the request went out (break detection) and now (the usage event). */
  sentAt: number;
  now: number;
  info: Info;
  pricing: ProviderId;
  readBody: () => object | null;
  readUsage: () => unknown;
  where: string;
  onBreak: ((cacheBreak: CacheBreak, info: Info) => void) | undefined;
  onUsage: ((usage: Usage, info: Info) => void) | undefined;
}): void {
  const { info, reporter, where } = input;
  try {
    const read = input.readUsage();
    const usage = read === null || read === undefined ? null : reporter.checkedUsage(read, where, info.conversationId);
    const body = input.readBody();
    if (body) {
      const found = input.state.detector.observe(body, {
        at: input.sentAt,
        turn: info.turn,
        step: info.step,
        ...(usage ? { usage } : {}),
      });
      if (found) reporter.call(input.onBreak, 'onBreak', found, info);
    }
    if (!usage) return;
    reporter.call(input.onUsage, 'onUsage', usage, info);
    publishUsage({
      reporter,
      where,
      bus: input.bus,
      conversationId: info.conversationId,
      at: input.now,
      turn: info.turn,
      step: info.step,
      model: info.model,
      pricing: input.pricing,
      usage,
    });
  } catch (error) {
    reporter.report(error, where, info.conversationId);
  }
}
