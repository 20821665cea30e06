import { type BreakDetector, createBreakDetector, type ObserveContext } from '../cache/break/break-detector.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import type { Session } from '../session/session.js';

/**
 * Live break detection for one session: every request's wire body is compared with the
 * previous one, and each break is published on the session's bus as `cache.break`.
 *
 * @example
 * const watch = watchCacheBreaks(session, 'anthropic');
 * watch.observe(prepared.body, { at: now, usage, turn: 3, step: 0 });
 */
export function watchCacheBreaks(session: Session, provider: ProviderId): BreakDetector {
  const detector = createBreakDetector({
    format: provider,
    bus: session.bus,
    sessionId: session.id,
    chatTemplate: providerEntry(provider).chatTemplate(session.model),
  });
  // A miss right after `rewriteHistory` (compaction) is the deliberate rewrite, named as such.
  let rewritesSeen = session.historyRewrites;
  const withRewrites = <Context extends ObserveContext>(context: Context): Context => {
    const rewritten = session.historyRewrites !== rewritesSeen;
    rewritesSeen = session.historyRewrites;
    return rewritten && context.historyRewritten === undefined ? { ...context, historyRewritten: true } : context;
  };
  return {
    observe: (body, context) => detector.observe(body, withRewrites(context)),
    observeNormalized: (body, context) => detector.observeNormalized(body, withRewrites(context)),
    reset: () => detector.reset(),
  };
}
