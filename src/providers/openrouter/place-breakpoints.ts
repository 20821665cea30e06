import type { AdapterWarning } from '../../model/adapter-warning.js';
import type { CanonicalRequest } from '../../model/request.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { resolveAnthropicModel } from '../anthropic/models.js';
import { DEFAULT_SESSION_BREAKPOINT_MIN_TOKENS } from '../anthropic/options.js';
import {
  type AnthropicCacheState,
  type CallerMarker,
  cacheControlMarker,
  type PlannedBreakpoint,
  planBreakpoints,
} from '../anthropic/place-breakpoints.js';
import type { WireOrigin } from '../openai-chat/chat-messages.js';
import { chatBreakpointSlots } from './breakpoint-slots.js';
import { anthropicModelId } from './models.js';
import type { OpenRouterMessage } from './openrouter-message.js';

export interface CacheControlPlanInput {
  request: CanonicalRequest;
  messages: readonly OpenRouterMessage[];
  origins: ReadonlyMap<object, WireOrigin>;
  maxMarkers: number;
  ttl: '5m' | '1h';
  counter: TokenCounter;
  /** The previous request's `metadata.cacheState` (see `AnthropicOptions.previous`). */
  previous: AnthropicCacheState | null | undefined;
  markers: readonly CallerMarker[];
  /** No request is expected after this one (`OpenRouterOptions.finalRequest`). */
  finalRequest?: boolean;
}

export interface CacheControlPlan {
  breakpoints: PlannedBreakpoint[];
  cacheState: AnthropicCacheState;
  floorTokens: number;
  warnings: AdapterWarning[];
}

/**
 * `cache_control` markers for routes that forward them to Anthropic, placed by the Anthropic
 * adapter's planner (`planBreakpoints`): caller markers, the end of the persisted history, a
 * lookback guard when the previous request's entry lies 20 or more positions back, the end of
 * the global static zone and, when it earns one, of the session static zone. At most
 * `maxMarkers`; never on reasoning, tool calls, empty text or the turn tail. Marks the parts
 * in place.
 *
 * @example
 * const plan = markCacheControl({ request, messages, origins, maxMarkers: 4, ttl: '5m', counter,
 *   previous: undefined, markers: [] });
 */
export function markCacheControl(input: CacheControlPlanInput): CacheControlPlan {
  const { slots, targets } = chatBreakpointSlots(input.request, input.messages, input.origins, input.counter);
  const floorTokens = resolveAnthropicModel(anthropicModelId(input.request.model)).effectiveFloorTokens;
  let lastAssistant: number | null = null;
  input.request.messages.forEach((message, index) => {
    if (message.role === 'assistant') lastAssistant = index;
  });
  const plan = planBreakpoints({
    slots,
    mode: 'plan',
    ttl: { global: input.ttl, session: input.ttl, history: input.ttl },
    floorTokens,
    sessionMinTokens: DEFAULT_SESSION_BREAKPOINT_MIN_TOKENS,
    previous: input.previous,
    lastAssistantMessageIndex: lastAssistant,
    markers: input.markers,
    maxBreakpoints: input.maxMarkers,
    ...(input.finalRequest ? { finalRequest: true } : {}),
  });
  for (const breakpoint of plan.breakpoints) {
    const target = targets[breakpoint.position];
    if (target) target.cache_control = cacheControlMarker(breakpoint.ttl);
  }
  return { breakpoints: plan.breakpoints, cacheState: plan.cacheState, floorTokens, warnings: plan.warnings };
}
