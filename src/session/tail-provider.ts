import type { TailItem, TailKind, TailScope } from '../model/request.js';

/** What a tail provider sees when it is evaluated for one request. */
export interface TailContext {
  sessionId: string;
  /** The request's time on the session's clock (ms since the epoch). */
  now: number;
  /** Number of user inputs so far (1 for the first turn). */
  turn: number;
  /** The text of the latest user input, for recall and matching. */
  latestUserText: string;
  inToolLoop: boolean;
}

/**
 * Produces turn-tail content for each request: memory recall, the current time, working
 * context, overlays, restart notices. Its output lives for one request and is never persisted.
 */
export interface TailProvider {
  kind: TailKind;
  position?: TailItem['position'];
  /** `auto` [default], `request` or `turn`; see `TailScope`. */
  scope?: TailScope;
  render(context: TailContext): string | null | undefined;
}

export interface CurrentTimeOptions {
  /** `auto` [default]: turn-scoped in tool loops when cheaper; the time is then the turn's start. */
  scope?: TailScope;
  /**
   * Round the time down to this many ms [1000]. A coarser clock (60_000: minutes) says what a
   * turn-scoped clock means: the model sees the time the turn started, at that resolution.
   */
  resolutionMs?: number;
}

/** The current date and time, in the tail only (never in a cached zone). */
export function currentTimeProvider(options: CurrentTimeOptions = {}): TailProvider {
  const resolution = Math.max(1, options.resolutionMs ?? 1000);
  return {
    kind: 'time',
    ...(options.scope ? { scope: options.scope } : {}),
    render: (context) =>
      `[current time] ${new Date(Math.floor(context.now / resolution) * resolution).toISOString().replace('.000Z', 'Z')}`,
  };
}

/** Wrap a plain function as a tail provider of the given kind. */
export function tailProvider(kind: TailKind, render: (context: TailContext) => string | null | undefined): TailProvider {
  return { kind, render };
}
