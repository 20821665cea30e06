import type { TailItem, TailKind } from '../model/request.js';

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
  render(context: TailContext): string | null | undefined;
}

/** The current date and time, in the tail only (never in a cached zone). */
export function currentTimeProvider(): TailProvider {
  return {
    kind: 'time',
    render: (context) => `[current time] ${new Date(context.now).toISOString().replace('.000Z', 'Z')}`,
  };
}

/** Wrap a plain function as a tail provider of the given kind. */
export function tailProvider(kind: TailKind, render: (context: TailContext) => string | null | undefined): TailProvider {
  return { kind, render };
}
