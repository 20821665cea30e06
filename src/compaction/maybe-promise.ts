import { CachetError } from '../model/errors.js';

/** A value, or a promise of it: stores and summarisers may answer synchronously (memory) or not (files, models). */
export type MaybePromise<T> = T | Promise<T>;

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** Run a step generator, awaiting every value it yields. */
export async function runAsync<R>(steps: Generator<unknown, R, unknown>): Promise<R> {
  let step = steps.next();
  while (!step.done) step = steps.next(await step.value);
  return step.value;
}

/**
 * Run a step generator synchronously. Every yielded value must already be there: a promise
 * means a store or summariser that only works asynchronously, which a synchronous caller
 * (the simulator) cannot wait for.
 */
export function runSync<R>(steps: Generator<unknown, R, unknown>, what: string): R {
  let step = steps.next();
  while (!step.done) {
    if (isPromise(step.value)) {
      step.value.catch(() => undefined);
      throw new CachetError(
        'async_in_sync_call',
        `${what}: a store or summariser answered asynchronously; use memory stores and the extractive summariser, or the async method`,
      );
    }
    step = steps.next(step.value);
  }
  return step.value;
}
