import { isAbsolute, resolve } from 'node:path';
import { isNode, LineCounter, type Node, parseDocument } from 'yaml';
import type { z } from 'zod';
import { FileReadError, readRegularFile } from '../model/read-regular-file.js';
import { joinPath } from '../model/validate.js';
import { bundledWorkloadPath } from './bundled-workloads.js';
import { DEFAULT_MAX_EXPANSION_BYTES, estimateExpansion } from './estimate-expansion.js';
import { expandWorkload, WorkloadContentError } from './expand-workload.js';
import type { Workload } from './workload.js';
import { WorkloadError } from './workload-error.js';
import { workloadFileSchema } from './workload-schema.js';

/**
 * Parse and validate workload text (YAML or JSON; JSON is read by the same YAML 1.2 parser,
 * so errors carry line numbers for both). Every problem becomes a `WorkloadError` naming the
 * file, the path inside it, the line and the problem.
 *
 * @example
 * const workload = parseWorkload(text, 'workloads/coding-agent.yaml');
 * workload.turns.length; // 6
 */
export interface LoadWorkloadOptions {
  /** Refuse a workload whose expansion is estimated above this many bytes (default 512 MiB). */
  maxExpansionBytes?: number;
  /** Refuse a workload file larger than this many bytes (default 16 MiB). */
  maxFileBytes?: number;
}

/** Default largest workload file: 16 MiB of YAML or JSON. */
export const DEFAULT_MAX_WORKLOAD_FILE_BYTES = 16 * 1024 * 1024;
/** Aliases expanded at most this many times (an alias bomb expands exponentially). */
const MAX_YAML_ALIAS_COUNT = 100;

export function parseWorkload(text: string, file: string, options: LoadWorkloadOptions = {}): Workload {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const syntaxError = document.errors[0];
  if (syntaxError) {
    const line = syntaxError.pos ? lineCounter.linePos(syntaxError.pos[0]).line : null;
    const first = syntaxError.message.split('\n')[0] ?? '';
    // yaml reports its own stack overflow on hostile nesting as a parse error; say what it means.
    const problem = /Maximum call stack/.test(first) ? 'nested too deeply to parse' : first;
    throw new WorkloadError(file, '', `not valid YAML or JSON: ${problem}`, line);
  }
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    // yaml throws a raw ReferenceError ("Excessive alias count ...") for an alias bomb.
    throw new WorkloadError(file, '', `refused: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new WorkloadError(file, '', 'expected a mapping of workload fields at the top level');
  }
  const lineOf = (segments: ReadonlyArray<PropertyKey>): number | null => {
    for (let length = segments.length; length >= 0; length--) {
      const node = document.getIn(segments.slice(0, length) as unknown[], true);
      if (isNode(node) && (node as Node).range) return lineCounter.linePos((node as Node).range![0]).line;
    }
    return null;
  };
  const parsed = workloadFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = pickIssue(parsed.error.issues);
    // An unknown key is best shown on its own line.
    const linePath =
      'keys' in issue && Array.isArray(issue.keys) && issue.keys.length > 0
        ? [...issue.path, issue.keys[0] as string]
        : issue.path;
    throw new WorkloadError(file, joinPath('', issue.path), describe(issue), lineOf(linePath));
  }
  const maxExpansionBytes = options.maxExpansionBytes ?? DEFAULT_MAX_EXPANSION_BYTES;
  const estimate = estimateExpansion(parsed.data);
  if (estimate.bytes > maxExpansionBytes) {
    throw new WorkloadError(
      file,
      estimate.largestPath,
      `expanding this workload would create about ${mebibytes(estimate.bytes)} of text and images, over the limit of ${mebibytes(maxExpansionBytes)} (this entry alone: about ${mebibytes(estimate.largestBytes)}); lower repeat counts, generated token sizes or image sizes`,
      lineOf(pathSegments(estimate.largestPath)),
    );
  }
  try {
    const workload = expandWorkload(parsed.data, file);
    // A repeat template warns once, not once per generated turn.
    const seen = new Set<string>();
    workload.warnings = workload.warnings.flatMap((warning) => {
      if (seen.has(warning.path)) return [];
      seen.add(warning.path);
      const line = lineOf(pathSegments(warning.path));
      return [{ ...warning, line, text: `${file}${line === null ? '' : `:${line}`}: ${warning.path}: ${warning.message}` }];
    });
    return workload;
  } catch (error) {
    if (error instanceof WorkloadContentError) {
      throw new WorkloadError(file, error.path, error.problem, lineOf(pathSegments(error.path)));
    }
    throw error;
  }
}

/**
 * Load a workload by file path or by bundled name (`coding-agent`).
 *
 * @example
 * const workload = await loadWorkload('skill-varying-chat');
 */
export async function loadWorkload(pathOrName: string, options: LoadWorkloadOptions = {}): Promise<Workload> {
  const byName = !looksLikePath(pathOrName);
  const file = byName ? bundledWorkloadPath(pathOrName) : isAbsolute(pathOrName) ? pathOrName : resolve(pathOrName);
  let text: string;
  try {
    text = await readRegularFile(file, { maxBytes: options.maxFileBytes ?? DEFAULT_MAX_WORKLOAD_FILE_BYTES });
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    if (error.problem === 'not_found') {
      const hint = byName
        ? `no bundled workload named "${pathOrName}" (run \`cachet workloads\` to list them, or pass a file path)`
        : 'file not found (run `cachet workloads` to list the bundled ones)';
      throw new WorkloadError(file, '', hint);
    }
    throw new WorkloadError(file, '', error.detail);
  }
  return parseWorkload(text, file, options);
}

function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
}

function looksLikePath(value: string): boolean {
  return value.includes('/') || value.includes('\\') || /\.(ya?ml|json)$/i.test(value);
}

/** For unions zod reports one issue per branch; the deepest one is the useful one. */
function pickIssue(issues: z.core.$ZodIssue[]): z.core.$ZodIssue {
  let best = issues[0] as z.core.$ZodIssue;
  for (const issue of issues) {
    const candidate = issue.code === 'invalid_union' ? deepestUnionIssue(issue) : issue;
    if (candidate.path.length > best.path.length) best = candidate;
  }
  return best.code === 'invalid_union' ? deepestUnionIssue(best) : best;
}

function deepestUnionIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union' || !('errors' in issue) || issue.errors.length === 0) return issue;
  let best: z.core.$ZodIssue | null = null;
  for (const branch of issue.errors) {
    for (const inner of branch) {
      const resolved = deepestUnionIssue({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue);
      if (!best || resolved.path.length > best.path.length) best = resolved;
    }
  }
  return best ?? issue;
}

function describe(issue: { code: string; message: string }): string {
  return issue.message.replace(/^Invalid input: /, '');
}

/** `turns[0].steps[1].name` -> ['turns', 0, 'steps', 1, 'name']. */
function pathSegments(path: string): Array<string | number> {
  const segments: Array<string | number> = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    segments.push(match[2] !== undefined ? Number(match[2]) : (match[1] as string));
  }
  return segments;
}
