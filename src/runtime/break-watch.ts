import { type BreakDetector, createBreakDetector } from '../cache/break/break-detector.js';
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
  return createBreakDetector({
    format: provider,
    bus: session.bus,
    sessionId: session.id,
    chatTemplate: providerEntry(provider).chatTemplate(session.model),
  });
}
