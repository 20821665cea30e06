import type { CanonicalRequest } from '../model/request.js';
import { assemble } from '../session/assemble.js';
import type { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { CompactionOptions } from './options.js';
import type { PipelineSessionState } from './pipeline-state.js';
import { measureRequest, type RequestMeasure } from './request-tokens.js';

export interface BeforeRequestContext {
  /** The request's time (default: the session's clock). */
  now?: number;
  /** Overrides the pipeline's idle-time estimate of the provider cache state. */
  cacheHot?: boolean;
  /** Overrides `expectedRemainingRequests` (a simulator knows how many requests are left). */
  remainingRequests?: number;
}

/** The request as it stands, before any rewrite, and the cache state it meets. */
export interface Measurement {
  request: CanonicalRequest;
  tokens: RequestMeasure;
  /** `tokens.total` as a share of the window. */
  utilisation: number;
  cacheHot: boolean;
  modelChanged: boolean;
  remainingRequests: number;
}

/**
 * Measure stage: assemble the request once (one tail render serves the measure and, when nothing
 * is rewritten, the request sent) and estimate the provider cache state from the idle time.
 */
export function measureStage(input: {
  session: Session;
  state: PipelineSessionState;
  options: CompactionOptions;
  counter: TokenCounter;
  now: number;
  context: BeforeRequestContext;
}): Measurement {
  const { session, state, options, now, context } = input;
  const modelChanged = state.lastModel !== null && state.lastModel !== session.model;
  const cacheHot =
    context.cacheHot ?? (!modelChanged && state.lastRequestAt !== null && now - state.lastRequestAt <= options.cacheTtlMs);
  const remainingRequests = context.remainingRequests ?? options.expectedRemainingRequests;
  const request = assemble(session, { now });
  const tokens = measureRequest(request, input.counter);
  return { request, tokens, utilisation: tokens.total / options.windowTokens, cacheHot, modelChanged, remainingRequests };
}
