import type { Command } from 'commander';
import { causeSentence, diffWireBodies, type WireDiff } from '../../cache/break/diff-wire-bodies.js';
import { wireFormatMismatch } from '../../cache/break/wire-format-mismatch.js';
import { detectWireFormat, normalizeWireBody } from '../../cache/wire/normalize-wire-body.js';
import { readCapture } from '../../gateway/analyze/read-capture.js';
import { conversationKey } from '../../gateway/proxy/conversation-key.js';
import { wireRouteOfProvider } from '../../gateway/proxy/wire-route.js';
import { CachetError } from '../../model/errors.js';
import { findJsonProblem } from '../../model/json-value-check.js';
import { FileReadError, readRegularFile } from '../../model/read-regular-file.js';
import { joinPath } from '../../model/validate.js';
import type { ProviderId } from '../../providers/adapter.js';
import { PROVIDER_NAMES } from '../../workloads/workload-schema.js';
import { parseProvider } from '../cli-options.js';

/** Exit code for unreadable or invalid input files (the CLI's convention for bad input). */
export const DIFF_BAD_INPUT_EXIT_CODE = 2;

export interface DiffCommandOptions {
  json?: boolean;
  provider?: ProviderId;
  /** A JSONL capture: compare each request with the previous one of its conversation. */
  sequence?: string;
}

export interface DiffOutput {
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * `cachet diff a.json b.json [--json] [--provider P]`: the first divergence between two
 * captured wire bodies of one session and its likely cause.
 *
 * @example
 * cachet diff request-4.json request-5.json
 * cachet diff request-4.json request-5.json --json   # {"identical":false,"firstDivergence":{...},"cause":"clock"}
 */
export function registerDiffCommand(program: Command): Command {
  return program
    .command('diff')
    .description('compare two captured request bodies and name the first cache-breaking divergence')
    .argument('[a]', 'the earlier request body (JSON file)')
    .argument('[b]', 'the later request body (JSON file)')
    .option('--json', 'print {identical, firstDivergence, cause, cacheImpact} as one JSON object')
    .option(
      '--provider <provider>',
      `wire format of both bodies (${PROVIDER_NAMES.join(', ')}); detected when absent`,
      parseProvider,
    )
    .option(
      '--sequence <file>',
      'a JSONL capture ({at, body} per line): diff each request with the previous one of its conversation',
    )
    .action(async (a: string | undefined, b: string | undefined, options: DiffCommandOptions) => {
      if (options.sequence) {
        process.exitCode = await runDiffSequence(options.sequence, options);
        return;
      }
      if (!a || !b) {
        console.error('cachet diff: give two body files, or --sequence capture.jsonl');
        process.exitCode = DIFF_BAD_INPUT_EXIT_CODE;
        return;
      }
      process.exitCode = await runDiff(a, b, options);
    });
}

/** Run the comparison and print it; returns the exit code (0 done, 2 bad input, 1 other failure). */
export async function runDiff(
  pathA: string,
  pathB: string,
  options: DiffCommandOptions = {},
  output: DiffOutput = { out: (line) => console.log(line), err: (line) => console.error(line) },
): Promise<number> {
  let report: ReturnType<typeof diffWireBodies>;
  try {
    const [a, b] = await Promise.all([readBody(pathA), readBody(pathB)]);
    checkShape(pathA, a, options.provider);
    checkShape(pathB, b, options.provider);
    report = diffWireBodies(a, b, options.provider ? { format: options.provider } : {});
  } catch (error) {
    if (error instanceof CachetError) {
      output.err(`cachet diff: ${error.message}`);
      return DIFF_BAD_INPUT_EXIT_CODE;
    }
    output.err(`cachet diff: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  if (options.json) {
    const result: WireDiff = {
      identical: report.identical,
      firstDivergence: report.byteDivergence,
      cause: report.byteCause,
      cacheImpact: report.cacheImpact,
    };
    output.out(JSON.stringify(result));
    return 0;
  }
  output.out(`${pathA} → ${pathB} (${report.a.format}${report.b.format !== report.a.format ? ` / ${report.b.format}` : ''})`);
  output.out(`identical: ${report.identical ? 'yes' : 'no'}`);
  const divergence = report.byteDivergence;
  if (!divergence || !report.byteCause) {
    output.out(
      report.identical
        ? 'no divergence.'
        : report.droppedTail
          ? "no cache break: b drops only a's turn tail, which is never persisted."
          : 'no cache break: b keeps everything a could have cached and only adds after it.',
    );
    return 0;
  }
  output.out(`first divergence: ${divergence.zone} at ${divergence.path}, byte ${divergence.byteOffset}`);
  output.out(`cause: ${report.byteCause} (${causeSentence(report.byteCause)})`);
  output.out(`  a: ${divergence.before || '(absent)'}`);
  output.out(`  b: ${divergence.after || '(absent)'}`);
  output.out(
    report.cacheImpact > 0
      ? `cache impact: about ${report.cacheImpact.toLocaleString('en-US')} tokens a could have cached cannot be read by b.`
      : "cache impact: none (no breakpoint of a covers this change; only what follows a's last breakpoint differs).",
  );
  return 0;
}

/** One consecutive pair of a `--sequence` capture, as `--json` prints it. */
export interface SequenceDiff extends WireDiff {
  conversation: string;
  /** Line positions (from 0, blank lines skipped) of the two requests in the capture. */
  from: number;
  to: number;
}

/**
 * `cachet diff --sequence capture.jsonl`: every request against the previous request of its
 * conversation (the capture's `conversation`, else the proxy's grouping rules).
 */
export async function runDiffSequence(
  path: string,
  options: DiffCommandOptions = {},
  output: DiffOutput = { out: (line) => console.log(line), err: (line) => console.error(line) },
): Promise<number> {
  const pairs: SequenceDiff[] = [];
  try {
    const requests = await readCapture(path);
    const previous = new Map<string, { index: number; body: unknown }>();
    requests.forEach((request, index) => {
      const format = options.provider ?? (request.provider as ProviderId | undefined) ?? detectWireFormat(request.body);
      const conversation = request.conversation ?? conversationKey(wireRouteOfProvider(format), request.body, null).id;
      const before = previous.get(conversation);
      previous.set(conversation, { index, body: request.body });
      if (!before) return;
      const report = diffWireBodies(before.body, request.body, { format });
      pairs.push({
        conversation,
        from: before.index,
        to: index,
        identical: report.identical,
        firstDivergence: report.byteDivergence,
        cause: report.byteCause,
        cacheImpact: report.cacheImpact,
      });
    });
  } catch (error) {
    output.err(`cachet diff: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof CachetError ? DIFF_BAD_INPUT_EXIT_CODE : 1;
  }
  if (options.json) {
    output.out(JSON.stringify({ pairs }));
    return 0;
  }
  for (const pair of pairs) {
    const where = pair.firstDivergence
      ? `${pair.cause} at ${pair.firstDivergence.path} byte ${pair.firstDivergence.byteOffset}, cache impact ${pair.cacheImpact.toLocaleString('en-US')} tokens`
      : pair.identical
        ? 'identical'
        : 'appends only';
    output.out(`${pair.conversation} #${pair.from} → #${pair.to}: ${where}`);
  }
  return 0;
}

/** Bad input error naming the file, for exit code 2. */
export class DiffInputError extends CachetError {
  readonly file: string;
  constructor(file: string, problem: string) {
    super('invalid_diff_input', `${file}: ${problem}`);
    this.file = file;
  }
}

/** Name the file when a body is not a request of any supported wire API, or not of `--provider`'s. */
function checkShape(path: string, body: unknown, provider: ProviderId | undefined): void {
  try {
    if (provider) {
      const mismatch = wireFormatMismatch(body, provider);
      if (mismatch) throw new DiffInputError(path, mismatch);
    }
    normalizeWireBody(body, provider);
  } catch (error) {
    if (error instanceof DiffInputError) throw error;
    if (error instanceof CachetError) throw new DiffInputError(path, error.message);
    throw error;
  }
}

/** Largest body file `cachet diff` reads: 64 MiB (a request body with images stays far below). */
const DIFF_MAX_FILE_BYTES = 64 * 1024 * 1024;

async function readBody(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readRegularFile(path, { maxBytes: DIFF_MAX_FILE_BYTES });
  } catch (error) {
    if (error instanceof FileReadError) {
      throw new DiffInputError(path, error.problem === 'not_found' ? 'no such file' : error.detail);
    }
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new DiffInputError(path, `is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DiffInputError(path, 'expected a JSON object (one provider request body)');
  }
  // Every later step walks the body recursively: refuse hostile nesting here, not by overflowing the stack.
  const problem = findJsonProblem(body);
  if (problem) throw new DiffInputError(path, `${joinPath('body', problem.path)}: expected ${problem.message}`);
  return body;
}
