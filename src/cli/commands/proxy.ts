import { createWriteStream } from 'node:fs';
import type { Command } from 'commander';
import { EventBus } from '../../events/event-bus.js';
import { checkListenHost } from '../../gateway/listen-policy.js';
import type { CaptureRecord } from '../../gateway/proxy/capture-record.js';
import type { ProxyKeepWarmOptions } from '../../gateway/proxy/keep-warm-options.js';
import { checkKeepWarmUpstream } from '../../gateway/proxy/keep-warm-stage.js';
import type { PlanOptions } from '../../gateway/proxy/plan-cache-fields.js';
import { collectYoungSoonerForProxy } from '../../gateway/proxy/proxy-gc.js';
import { printableUpstream, resolveUpstream } from '../../gateway/proxy/wire-route.js';
import { openTraceStore } from '../../trace/open-trace-store.js';
import { recordEvents } from '../../trace/record-events.js';
import { DEFAULT_TRACE_DB } from '../../trace/sqlite-trace-store.js';
import { hashStrings, STORE_CONTENT_MODES, type StoreContent } from '../../trace/store-content.js';
import { MODELS_FILE_OPTION, oneOf } from '../cli-options.js';
import { CliUsageError } from '../cli-usage-error.js';
import { HTTP_PEERS, loadWithPeers, traceStorePeer } from '../load-with-peers.js';
import { stopOnSignal } from './emulate.js';
import { parseBudgetUsd, parsePort, parsePositiveInteger } from './parse-port.js';

export interface ProxyCommandOptions {
  upstream: string;
  port: number;
  host: string;
  plan?: boolean;
  ttl?: '5m' | '1h';
  retention?: 'in_memory' | '24h';
  volatile?: 'auto' | 'off';
  diagnostics?: boolean;
  /** `--no-plan-savings` sets false. */
  planSavings?: boolean;
  db: string;
  capture?: string;
  timeout: number;
  maxBody: number;
  /** `--allow-remote`: required for a non-loopback `--host`. */
  allowRemote?: boolean;
  /** `--keep-warm[=budget]`: true (the default budget) or the global budget in USD. */
  keepWarm?: boolean | number;
  /** How much prompt content the store and capture keep [hashes]. */
  storeContent?: StoreContent;
}

/**
 * Commander's invalid-argument message repeats the argument, which may hold credentials
 * (`http://user:password@host`): the typed error from `resolveUpstream`, which never does,
 * is raised as it is.
 */
function parseUpstream(value: string): string {
  resolveUpstream(value);
  return value;
}

/**
 * `cachet proxy`: put Cachet in front of any client by base URL. Bodies pass through
 * byte-for-byte (or with Cachet's cache fields under `--plan`); usage, causes and timings go
 * to the trace store (`cachet serve` shows them) and optionally to a capture file for `cachet analyze`.
 *
 * @example
 * cachet proxy --upstream anthropic --port 8787 --capture capture.jsonl
 * ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude
 */
export function registerProxyCommand(program: Command): Command {
  return program
    .command('proxy')
    .description('diagnose (and with --plan, place) prompt caching in front of any client')
    .requiredOption('--upstream <name|url>', 'anthropic, openai, openrouter or an http(s) base URL', parseUpstream)
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 8787)
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--allow-remote', 'accept a --host other machines can reach (requests and API keys then cross the network)')
    .option('--plan', "rewrite cache fields (never content) with Cachet's plan")
    .option(MODELS_FILE_OPTION.flags, MODELS_FILE_OPTION.description)
    .option('--ttl <ttl>', 'TTL of planned Anthropic breakpoints (5m, 1h)', oneOf(['5m', '1h'] as const), '5m')
    .option(
      '--retention <retention>',
      'OpenAI prompt_cache_retention to set under --plan (in_memory, 24h)',
      oneOf(['in_memory', '24h'] as const),
    )
    .option(
      '--volatile <mode>',
      "under --plan, auto moves the system prompt's per-turn paragraphs (clock, recalled memories) into a turn-scoped tail (Anthropic)",
      oneOf(['auto', 'off'] as const),
    )
    .option('--no-diagnostics', 'under --plan, do not ask Anthropic for diagnostics.cache_miss_reason')
    .option('--no-plan-savings', "under --plan, do not model the client's own bodies for the dashboard's plan savings")
    .option(
      '--keep-warm [usd]',
      "pre-warm idle Anthropic conversations with the client's own credentials while it pays, within a USD budget [1]",
      parseBudgetUsd,
    )
    .option(
      '--db <path|url>',
      'trace store: SQLite file or postgres:// URL (env CACHET_DB)',
      process.env.CACHET_DB ?? DEFAULT_TRACE_DB,
    )
    .option('--capture <file>', 'append each completed exchange (bodies and usage, never headers) as JSONL')
    .option(
      '--store-content <mode>',
      'prompt text kept in the trace store and capture: hashes (text hashed, the default), full, none',
      oneOf(STORE_CONTENT_MODES),
      'hashes',
    )
    .option('--timeout <ms>', 'time allowed until the upstream answers', parsePositiveInteger, 600_000)
    .option('--max-body <bytes>', 'largest request body forwarded', parsePositiveInteger, 32 * 1024 * 1024)
    .action(async (options: ProxyCommandOptions) => {
      await runProxy(options);
    });
}

/** Start the proxy and stop it on SIGINT/SIGTERM; resolves with the stop function once listening. */
export async function runProxy(
  options: ProxyCommandOptions,
  output: { out: (line: string) => void; err: (line: string) => void } = { out: console.log, err: console.error },
): Promise<() => Promise<void>> {
  const { startProxy, PROXY_TRACE_WRITE_INTERVAL_MS } = await loadWithPeers(
    () => import('../../gateway/proxy/start-proxy.js'),
    [...HTTP_PEERS, traceStorePeer(options.db)],
    'cachet proxy',
  );
  // Refused before the store is opened: a refused start leaves nothing behind.
  checkListenHost('cachet proxy', options.host, options.allowRemote ?? false);
  const keepWarm: ProxyKeepWarmOptions | null =
    options.keepWarm === undefined || options.keepWarm === false
      ? null
      : options.keepWarm === true
        ? {}
        : { budgetUsd: options.keepWarm };
  if (keepWarm) checkKeepWarmUpstream(options.upstream, keepWarm);
  // A proxy sits in front of production traffic: by default nothing it stores holds prompt text.
  const storeContent = options.storeContent ?? 'hashes';
  if (storeContent === 'none' && options.capture) {
    throw new CliUsageError(
      'cachet proxy: --capture writes request bodies; use --store-content hashes (bodies hashed) or full with it',
    );
  }
  const store = await openTraceStore(options.db, { storeContent });
  // This process is the proxy's: its young generation is collected sooner (see proxy-gc.ts).
  collectYoungSoonerForProxy();
  const bus = new EventBus();
  const recorder = recordEvents(bus, store, {
    minWriteIntervalMs: PROXY_TRACE_WRITE_INTERVAL_MS,
    onError: (error) => output.err(`cachet proxy: trace store write failed, will retry: ${(error as Error).message}`),
    onDeadLetter: (event, reason) =>
      output.err(
        `cachet proxy: ${event.type} of session ${event.sessionId} was refused by the store (kept in dead letters): ${reason}`,
      ),
  });
  const captureFile = options.capture ? createWriteStream(options.capture, { flags: 'a' }) : null;
  captureFile?.on('error', (error) => output.err(`cachet proxy: capture file: ${error.message}`));
  const plan: PlanOptions | undefined = options.plan
    ? {
        ...(options.ttl ? { ttl: options.ttl } : {}),
        ...(options.retention ? { retention: options.retention } : {}),
        ...(options.volatile ? { volatile: options.volatile } : {}),
        diagnostics: options.diagnostics !== false,
        savings: options.planSavings !== false,
      }
    : undefined;
  const proxy = await startProxy({
    upstream: options.upstream,
    port: options.port,
    host: options.host,
    ...(options.allowRemote ? { allowRemote: true } : {}),
    bus,
    timeoutMs: options.timeout,
    maxBodyBytes: options.maxBody,
    ...(plan ? { plan } : {}),
    ...(keepWarm ? { keepWarm } : {}),
    ...(captureFile ? { capture: (record) => captureFile.write(`${JSON.stringify(captureLine(record, storeContent))}\n`) } : {}),
    onWarning: (message) => output.err(message),
    onRecordError: (error) => output.err(`cachet proxy: an exchange could not be recorded: ${(error as Error).message}`),
  });
  output.out(
    `cachet proxy: ${proxy.url} → ${printableUpstream(resolveUpstream(options.upstream))}${plan ? ' (--plan)' : ' (pass-through)'}`,
  );
  output.out(`  Anthropic clients: ANTHROPIC_BASE_URL=${proxy.url}   OpenAI clients: OPENAI_BASE_URL=${proxy.url}/v1`);
  output.out(
    `  traces: ${store.location} (see them with \`cachet serve --db ${store.location}\`)${options.capture ? `; capture: ${options.capture}` : ''}`,
  );
  if (keepWarm) {
    output.out(
      `  keep-warm: on, budget $${(keepWarm.budgetUsd ?? 1).toFixed(2)} (pings appear as cache.keepalive in the traces)`,
    );
  }
  return stopOnSignal(async () => {
    const warm = proxy.stats().keepWarm;
    if (warm) {
      output.out(
        `cachet proxy: keep-warm sent ${warm.pingsSent} ping${warm.pingsSent === 1 ? '' : 's'} ($${warm.spentUsd.toFixed(4)}), saved $${warm.savedUsd.toFixed(4)} of re-writes; ${warm.pingsFailed} failed, ${warm.stoppedByBudget} stopped by the budget`,
      );
    }
    await proxy.close();
    await recorder.stop();
    await store.close();
    if (captureFile) await new Promise<void>((done) => captureFile.end(done));
  });
}

/** A capture line under `hashes`: bodies keep their shape (so `cachet analyze` finds the changed block) but no text. */
function captureLine(record: CaptureRecord, storeContent: StoreContent): CaptureRecord {
  if (storeContent === 'full') return record;
  return {
    ...record,
    body: hashStrings(record.body),
    ...(record.sent === undefined ? {} : { sent: hashStrings(record.sent) }),
  };
}
