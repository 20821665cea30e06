import type { EventBus } from '../../events/event-bus.js';
import { type Usage, usageSchema } from '../../model/usage.js';

/** Where a drop-in's problem happened, passed to `onError` with the error. */
export interface HookErrorContext {
  /** The drop-in (`ai-sdk`, `langchain`, `pi`) and hook (`transformParams`, `recordUsage`, ...). */
  where: string;
  conversationId: string | null;
}

/** What every drop-in accepts to hear about problems it contained. */
export interface ContainedHookOptions {
  /**
   * Called with every error a hook contained (a tail function that threw, unreadable usage, a
   * callback of yours that threw). The host library never sees these: the call goes out
   * unchanged or the usage is not published. Also published as `warning.raised` on `bus`.
   */
  onError?: (error: Error, context: HookErrorContext) => void;
  bus?: EventBus;
  clock?: () => number;
}

/** Reports contained problems: `onError`, `warning.raised`, or one console line when neither is set. */
export interface HookReporter {
  report(error: unknown, where: string, conversationId?: string | null): void;
  /** Calls a user callback; what it throws is reported, never passed on. */
  call<A extends unknown[]>(callback: ((...args: A) => void) | undefined, where: string, ...args: A): void;
  /** The usage when its figures are whole non-negative counts; otherwise null, and the problem reported. */
  checkedUsage(usage: unknown, where: string, conversationId: string | null): Usage | null;
  /** A cost when it is a finite number; otherwise null, reported (an unknown must never read as free or NaN). */
  checkedCost(cost: number, where: string, conversationId: string | null): number | null;
}

export function hookReporter(source: string, options: ContainedHookOptions): HookReporter {
  const clock = options.clock ?? Date.now;
  const toldConsole = new Set<string>();
  const report = (error: unknown, where: string, conversationId: string | null = null) => {
    const asError = error instanceof Error ? error : new Error(String(error));
    const place = `${source}.${where}`;
    try {
      options.onError?.(asError, { where: place, conversationId });
    } catch {
      // An onError that throws has nowhere left to report to.
    }
    try {
      options.bus?.emit('warning.raised', conversationId ?? source, clock(), { source: place, message: asError.message });
    } catch {
      // The bus contains its own listeners; an unusable session id must not escape either.
    }
    if (!options.onError && !options.bus && !toldConsole.has(place)) {
      toldConsole.add(place);
      console.warn(`cachet ${place}: ${asError.message} (contained; pass onError to see every occurrence)`);
    }
  };
  return {
    report,
    call(callback, where, ...args) {
      if (!callback) return;
      try {
        callback(...args);
      } catch (error) {
        report(error, where);
      }
    },
    checkedUsage(usage, where, conversationId) {
      const parsed = usageSchema.safeParse(usage);
      if (parsed.success) return usage as Usage;
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'usage';
      report(new Error(`usage not recorded: ${field} ${issue?.message ?? 'is invalid'}`), where, conversationId);
      return null;
    },
    checkedCost(cost, where, conversationId) {
      if (Number.isFinite(cost)) return cost;
      report(new Error(`cost not recorded: got ${String(cost)}`), where, conversationId);
      return null;
    },
  };
}
