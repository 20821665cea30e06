import { setFlagsFromString } from 'node:v8';

/**
 * How full V8 lets the young generation get, in percent of its capacity, before it schedules a
 * young-generation collection in the process `cachet proxy` runs in (V8's default: 80).
 */
export const PROXY_MINOR_GC_TASK_TRIGGER = 25;

let tuned = false;

/**
 * Makes V8 collect the young generation sooner in the process `cachet proxy` runs in (the CLI
 * calls this; a library user's process keeps its own settings). node:http copies each chunk of a
 * request body into a fresh buffer outside the JS heap, which V8 frees only when it collects the
 * young generation, and V8 counts the buffer memory allocated since its last full collection
 * against its old-generation limit. The proxy allocates little on the JS heap per request (at
 * 500 KB its young generation filled every 80–160 requests), so those buffers piled up and
 * started a full collection of the whole heap every ~40 requests: under `--plan`, whose heap holds
 * the plan models, ~150 ms each. Collected at a quarter full, the buffers go with the young
 * generation and most full collections with them (built code, paired rounds, 500 KB at
 * concurrency 1: `--plan` 7.8 → 3.9 ms per request, its full collections 9 → 4). At 5% the
 * scavenges themselves cost more than they saved with 5 KB bodies (840 against 41).
 */
export function collectYoungSoonerForProxy(): void {
  setFlagsFromString(`--minor-gc-task-trigger=${PROXY_MINOR_GC_TASK_TRIGGER}`);
  tuned = true;
}

/** Whether `collectYoungSoonerForProxy` ran in this process. */
export function proxyGcTuned(): boolean {
  return tuned;
}
