import { causeSentence } from '../../cache/break/diff-wire-bodies.js';
import type { CacheBreakCause } from '../../events/catalog.js';
import { CaptureAnalyzer, type MissCause } from '../../gateway/analyze/analyze-capture.js';
import { CaptureError, readCaptureLines } from '../../gateway/analyze/read-capture.js';
import { isHarnessId } from '../../import/harnesses.js';
import { HARNESS_IDS } from '../../import/log-record.js';
import { importLogs } from '../../import/run-import.js';
import { CachetError } from '../../model/errors.js';
import type { TraceStore } from '../../trace/trace-store.js';

/** What `cachet check` judges, whatever the input: the read share, the causes and the first break. */
export interface CheckFigures {
  input: 'capture' | 'store' | 'import';
  requests: number;
  readShare: number;
  costUsd: number;
  causes: Array<{ cause: MissCause; count: number; missedTokens: number }>;
  /** The first miss that broke the prefix (or the first miss, when none did). */
  firstBreak: FirstBreak | null;
}

export interface FirstBreak {
  conversation: string;
  /** The request's position: in the capture (from 0), or `turn.step` in a store or an import. */
  request: string;
  cause: MissCause;
  /** The first block that differs from the previous request, where the input shows it. */
  path: string | null;
  byteOffset: number | null;
  before: string | null;
  after: string | null;
  missedTokens: number;
}

/**
 * Causes that mean the prefix itself changed between requests: what a stable-prefix assertion
 * forbids. Expiry, the minimum size, breakpoint placement, compaction and routing are not
 * prefix changes; `unknown` is not asserted on (nothing says the prefix changed).
 */
export const PREFIX_CAUSES: readonly MissCause[] = [
  'clock',
  'tool-order',
  'tools-changed',
  'system-changed',
  'history-edited',
  'model-changed',
  'params-changed',
  'template-rerender',
];

/** Bad input for `cachet check`: the CLI exits 2. */
export class CheckInputError extends CachetError {
  constructor(message: string) {
    super('invalid_check_input', message);
  }
}

/** A capture (the `cachet analyze` input), judged line by line: memory bounded by its conversations. */
export async function captureFigures(path: string): Promise<CheckFigures> {
  const analyzer = new CaptureAnalyzer({ keepRequestsPerConversation: 0 });
  let firstBreak: FirstBreak | null = null;
  let firstPrefixBreak: FirstBreak | null = null;
  for await (const { request, line } of readCaptureLines(path)) {
    let judged: ReturnType<CaptureAnalyzer['add']>;
    try {
      judged = analyzer.add(request);
    } catch (error) {
      if (error instanceof CachetError && !(error instanceof CaptureError)) throw new CaptureError(path, line, error.message);
      throw error;
    }
    if (!judged.missCause || (firstPrefixBreak && firstBreak)) continue;
    const found: FirstBreak = {
      conversation: judged.conversation,
      request: String(judged.index),
      cause: judged.missCause,
      path: judged.changed?.path ?? null,
      byteOffset: judged.changed?.byteOffset ?? null,
      before: judged.changed?.before ?? null,
      after: judged.changed?.after ?? null,
      missedTokens: judged.missedTokens,
    };
    firstBreak ??= found;
    if (PREFIX_CAUSES.includes(found.cause)) firstPrefixBreak ??= found;
  }
  const analysis = analyzer.finish();
  const causes = new Map<MissCause, { cause: MissCause; count: number; missedTokens: number }>();
  for (const conversation of analysis.conversations) {
    for (const cause of conversation.topCauses) {
      const entry = causes.get(cause.cause) ?? { cause: cause.cause, count: 0, missedTokens: 0 };
      entry.count += cause.count;
      entry.missedTokens += cause.missedTokens;
      causes.set(cause.cause, entry);
    }
  }
  return {
    input: 'capture',
    requests: analysis.totals.requests,
    readShare: analysis.totals.readShare,
    costUsd: analysis.totals.costUsd,
    causes: sortCauses([...causes.values()]),
    firstBreak: firstPrefixBreak ?? firstBreak,
  };
}

/** A trace store's figures, from its own aggregates. */
export async function storeFigures(store: TraceStore): Promise<CheckFigures> {
  const report = await store.cacheEffectiveness();
  const breaks = await store.events({ types: ['cache.break'] });
  let firstBreak: FirstBreak | null = null;
  for (const event of breaks) {
    if (event.type !== 'cache.break') continue;
    const found: FirstBreak = {
      conversation: event.sessionId,
      request: `${event.payload.turn}.${event.payload.step}`,
      cause: event.payload.cause,
      path: event.payload.path,
      byteOffset: event.payload.byteOffset,
      before: event.payload.before,
      after: event.payload.after,
      missedTokens: event.payload.missedTokens,
    };
    if (PREFIX_CAUSES.includes(found.cause)) {
      firstBreak = found;
      break;
    }
    firstBreak ??= found;
  }
  return {
    input: 'store',
    requests: report.overall.requests,
    readShare: report.overall.hitRate,
    costUsd: report.overall.costUsd,
    causes: sortCauses(report.breaks.map((entry) => ({ ...entry }))),
    firstBreak,
  };
}

/** A harness's logs, read as `cachet import` reads them (nothing is stored). */
export async function importFigures(harness: string, path: string): Promise<CheckFigures> {
  if (!isHarnessId(harness)) {
    throw new CheckInputError(`--from: unknown harness ${JSON.stringify(harness)}: expected one of ${HARNESS_IDS.join(', ')}`);
  }
  const summary = await importLogs({ harness, path });
  const first = summary.firstBreak;
  return {
    input: 'import',
    requests: summary.requests,
    readShare: summary.readShare,
    costUsd: summary.costUsd,
    causes: summary.causes,
    firstBreak: first
      ? {
          conversation: first.sessionId,
          request: `${first.turn}.${first.step}`,
          cause: first.cause,
          path: first.path,
          byteOffset: null,
          before: null,
          after: null,
          missedTokens: first.missedTokens,
        }
      : null,
  };
}

function sortCauses<T extends { missedTokens: number; count: number }>(causes: T[]): T[] {
  return causes.sort((left, right) => right.missedTokens - left.missedTokens || right.count - left.count);
}

/** One line for people: the cause in words and where the prefix first differed. */
export function describeBreak(found: FirstBreak): string {
  const cause =
    found.cause === 'no-breakpoint' ? 'no breakpoint covers the history' : causeSentence(found.cause as CacheBreakCause);
  const where = found.path ? ` at ${found.path}${found.byteOffset === null ? '' : ` byte ${found.byteOffset}`}` : '';
  return `${found.cause} in ${found.conversation}, request ${found.request}${where}: ${cause} (${found.missedTokens.toLocaleString('en-US')} cached tokens not read)`;
}
