/** Exchanges waiting to be judged before the proxy records further ones without judging. */
export const DEFAULT_JUDGE_QUEUE = 64;

/**
 * One recorded exchange: `judge` is false when the queue was full as it arrived;
 * `firstDropped` marks the first unjudged exchange of a burst (to warn once, not per request).
 */
export type RecordTask = (judge: boolean, firstDropped: boolean) => void;

export interface JudgeQueue {
  /** Queue a record; it runs on a later turn of the event loop, in arrival order. */
  push(task: RecordTask): void;
  /** Records waiting. */
  readonly pending: number;
  /** Records that were kept but not judged because `limit` judgings were already waiting. */
  readonly dropped: number;
  /** Resolves when the queue is empty. */
  idle(): Promise<void>;
}

/**
 * Recording off the request path: each exchange's record (events, capture, and its judging —
 * the plan's savings and the break detector, which count tokens) runs on its own turn of the
 * event loop, after the client's reply, so other clients' requests interleave. At most `limit`
 * judgings wait; an exchange arriving beyond that is still recorded, in order, without judging
 * (`dropped` counts them; the first of each burst is told so). Traffic is never held.
 */
export function createJudgeQueue(options: { limit?: number; onError?: (error: unknown) => void } = {}): JudgeQueue {
  const limit = options.limit ?? DEFAULT_JUDGE_QUEUE;
  const tasks: Array<{ task: RecordTask; judge: boolean; firstDropped: boolean }> = [];
  let judging = 0;
  let dropped = 0;
  let dropping = false;
  let scheduled = false;
  let waiters: Array<() => void> = [];

  const runOne = () => {
    scheduled = false;
    const next = tasks.shift();
    if (next) {
      if (next.judge) judging--;
      try {
        next.task(next.judge, next.firstDropped);
      } catch (error) {
        options.onError?.(error);
      }
    }
    if (tasks.length > 0) schedule();
    else {
      const done = waiters;
      waiters = [];
      for (const resolve of done) resolve();
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(runOne);
  };

  return {
    push(task) {
      const judge = judging < limit;
      const firstDropped = !judge && !dropping;
      dropping = !judge;
      if (judge) judging++;
      else dropped++;
      tasks.push({ task, judge, firstDropped });
      schedule();
    },
    get pending() {
      return tasks.length;
    },
    get dropped() {
      return dropped;
    },
    idle() {
      if (tasks.length === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
