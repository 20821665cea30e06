import { readFile } from 'node:fs/promises';
import type { MissCause } from '../../gateway/analyze/analyze-capture.js';
import { type CheckFigures, CheckInputError, PREFIX_CAUSES } from './check-figures.js';

/** What a run is compared with next time (`--write-baseline`, then `--baseline`). */
export interface CheckBaseline {
  readShare: number;
  requests: number;
  costUsd: number;
  causes: Partial<Record<MissCause, number>>;
}

export interface CheckRules {
  /** Fail below this read share (0 to 1). */
  minReadShare?: number;
  /** Fail on a miss whose cause changed the prefix (`PREFIX_CAUSES`) unless allowed [true]. */
  stablePrefix: boolean;
  allowCauses: readonly string[];
  baseline?: CheckBaseline;
  /** How far the read share may fall below the baseline before it counts as a regression [0.02]. */
  tolerance: number;
}

export interface CheckVerdict {
  passed: boolean;
  failures: string[];
  figures: CheckFigures;
}

/** Judge figures against the rules: every failure named, none hidden behind the first. */
export function judgeCheck(figures: CheckFigures, rules: CheckRules): CheckVerdict {
  const failures: string[] = [];
  const share = (value: number) => `${(value * 100).toFixed(1)}%`;
  if (rules.minReadShare !== undefined && figures.readShare < rules.minReadShare) {
    failures.push(`read share ${share(figures.readShare)} is below --min-read-share ${share(rules.minReadShare)}`);
  }
  if (rules.stablePrefix) {
    const broken = figures.causes.filter(
      (cause) => PREFIX_CAUSES.includes(cause.cause) && !rules.allowCauses.includes(cause.cause),
    );
    for (const cause of broken) {
      failures.push(
        `stable prefix: ${cause.count} request(s) missed because of ${cause.cause} (allow with --allow-cause ${cause.cause})`,
      );
    }
  }
  const baseline = rules.baseline;
  if (baseline) {
    if (figures.readShare < baseline.readShare - rules.tolerance) {
      failures.push(
        `regressed: read share ${share(figures.readShare)}, baseline ${share(baseline.readShare)} (tolerance ${share(rules.tolerance)})`,
      );
    }
    for (const cause of figures.causes) {
      if (PREFIX_CAUSES.includes(cause.cause) && (baseline.causes[cause.cause] ?? 0) === 0) {
        failures.push(`regressed: ${cause.cause} misses (${cause.count}) the baseline did not have`);
      }
    }
  }
  return { passed: failures.length === 0, failures, figures };
}

export function baselineOf(figures: CheckFigures): CheckBaseline {
  return {
    readShare: figures.readShare,
    requests: figures.requests,
    costUsd: figures.costUsd,
    causes: Object.fromEntries(figures.causes.map((cause) => [cause.cause, cause.count])),
  };
}

/** Read a baseline file; a missing or malformed one is bad input (exit 2), never a silent pass. */
export async function readBaseline(path: string): Promise<CheckBaseline> {
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) throw new CheckInputError(`--baseline ${path}: no such file`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CheckInputError(`--baseline ${path}: not valid JSON (${(error as Error).message})`);
  }
  const baseline = value as Partial<CheckBaseline>;
  if (
    typeof baseline !== 'object' ||
    baseline === null ||
    typeof baseline.readShare !== 'number' ||
    typeof baseline.causes !== 'object' ||
    baseline.causes === null
  ) {
    throw new CheckInputError(
      `--baseline ${path}: expected { readShare, requests, costUsd, causes } as --write-baseline writes it`,
    );
  }
  return value as CheckBaseline;
}
