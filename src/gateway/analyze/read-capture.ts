import { z } from 'zod';
import { CachetError } from '../../model/errors.js';
import { findJsonProblem, MAX_JSON_DEPTH, MAX_JSON_NODES } from '../../model/json-value-check.js';
import { FileReadError } from '../../model/read-regular-file.js';
import { readRegularFileLineBytes } from '../../model/read-regular-file-lines.js';
import type { ProviderCacheMissReason } from '../../model/usage.js';
import { joinPath } from '../../model/validate.js';
import { HistoryReuse } from './reuse-capture-history.js';

/** One captured request: the proxy's capture lines, or a plain `{ at, body, usage? }` line. */
export interface CapturedRequest {
  /** Request start, ms since the epoch. */
  at: number;
  body: Record<string, unknown>;
  /**
   * The body as it went upstream when a proxy rewrote it (`cachet proxy --plan` captures): the
   * usage is this body's, so it is the one judged; `body` is then the client's own.
   */
  sent?: Record<string, unknown>;
  /** The provider's usage object as reported, when known. */
  usage?: Record<string, unknown>;
  conversation?: string;
  /** Wire format (`anthropic`, `openai-chat`, `openai-responses`, `openrouter`, `openai-compatible`); detected when absent. */
  provider?: string;
  /** The provider's own diagnosis (proxy captures of Anthropic requests with diagnostics). */
  cacheMissReason?: ProviderCacheMissReason | null;
  /** The response's Anthropic `diagnostics` object as captured (the line's own, or inside `usage`), read for the server's cause. */
  diagnostics?: unknown;
}

const lineSchema = z
  .object({
    at: z.union([z.number().nonnegative(), z.string().min(1)]),
    body: z.record(z.string(), z.unknown()),
    sent: z.record(z.string(), z.unknown()).nullish(),
    usage: z.record(z.string(), z.unknown()).nullish(),
    conversation: z.string().min(1).optional(),
    provider: z.string().min(1).optional(),
    cacheMissReason: z.object({ type: z.string(), missedTokens: z.number().nullable() }).nullish(),
    diagnostics: z.unknown().optional(),
  })
  .passthrough();

/** A capture line that cannot be read, naming the file, line and field. */
export class CaptureError extends CachetError {
  readonly line: number;
  constructor(file: string, line: number, problem: string) {
    super('invalid_capture', `${file}${line > 0 ? `:${line}` : ''}: ${problem}`);
    this.line = line;
  }
}

/** Longest capture line accepted [64 MiB, as `cachet diff` for one body]; a longer one is refused as it is read. */
export const DEFAULT_MAX_CAPTURE_LINE_BYTES = 64 * 1024 * 1024;

/**
 * One capture line parsed and checked: valid JSON, no nesting past `MAX_JSON_DEPTH` (every
 * later step walks the body recursively), the line shape, and a readable `at`. Throws a
 * CaptureError naming file, line and field.
 */
export function parseCaptureLine(text: string, lineNumber: number, file = 'capture'): CapturedRequest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CaptureError(file, lineNumber, `not valid JSON (${(error as Error).message})`);
  }
  // What JSON.parse returns can only be too deep, too large or hold a number past a double
  // (1e400 is Infinity): the general check (which also looks for class instances and cycles,
  // and builds the path) runs only to name a problem the quick walk found.
  if (!withinJsonLimits(json)) {
    const problem = findJsonProblem(json);
    if (problem) throw new CaptureError(file, lineNumber, `${joinPath('', problem.path) || 'line'}: expected ${problem.message}`);
  }
  return captureLineOf(json, lineNumber, file);
}

/** A parsed line within the JSON limits as a request; the usual line is checked by hand, the schema runs only to name what is wrong with another. */
function captureLineOf(json: unknown, lineNumber: number, file: string): CapturedRequest {
  return plainCaptureLine(json) ?? schemaCaptureLine(json, lineNumber, file);
}

function schemaCaptureLine(json: unknown, lineNumber: number, file: string): CapturedRequest {
  const parsed = lineSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CaptureError(file, lineNumber, `${issue.path.join('.') || 'line'}: ${issue.message}`);
  }
  const { at, body, sent, usage, conversation, provider, cacheMissReason } = parsed.data;
  const diagnostics = parsed.data.diagnostics ?? usage?.diagnostics;
  const time = typeof at === 'number' ? at : Date.parse(at);
  if (Number.isNaN(time))
    throw new CaptureError(file, lineNumber, `at: expected milliseconds or an ISO 8601 time, got ${JSON.stringify(at)}`);
  return capturedRequest(
    time,
    body,
    usage ?? undefined,
    conversation,
    provider,
    cacheMissReason ?? undefined,
    diagnostics,
    sent ?? undefined,
  );
}

/**
 * The line as `lineSchema` reads it when it is a plain object whose fields all have the
 * schema's types (and `at` a number or a readable time), else null.
 */
function plainCaptureLine(json: unknown): CapturedRequest | null {
  if (!isPlainRecord(json)) return null;
  const { at, body, sent, usage, conversation, provider, cacheMissReason, diagnostics } = json;
  if (!isPlainRecord(body)) return null;
  if (sent !== undefined && sent !== null && !isPlainRecord(sent)) return null;
  if (usage !== undefined && usage !== null && !isPlainRecord(usage)) return null;
  if (conversation !== undefined && !(typeof conversation === 'string' && conversation.length > 0)) return null;
  if (provider !== undefined && !(typeof provider === 'string' && provider.length > 0)) return null;
  let reason: ProviderCacheMissReason | undefined;
  if (cacheMissReason !== undefined && cacheMissReason !== null) {
    if (!isPlainRecord(cacheMissReason)) return null;
    const { type, missedTokens } = cacheMissReason;
    if (typeof type !== 'string' || !(missedTokens === null || typeof missedTokens === 'number')) return null;
    reason = { type, missedTokens } as ProviderCacheMissReason;
  }
  let time: number;
  if (typeof at === 'number' && at >= 0) time = at;
  else if (typeof at === 'string' && at.length > 0) time = Date.parse(at);
  else return null;
  if (Number.isNaN(time)) return null;
  const usageRecord = usage ?? undefined;
  return capturedRequest(
    time,
    body,
    usageRecord,
    conversation,
    provider,
    reason,
    diagnostics ?? usageRecord?.diagnostics,
    sent ?? undefined,
  );
}

function capturedRequest(
  at: number,
  body: Record<string, unknown>,
  usage: Record<string, unknown> | undefined,
  conversation: string | undefined,
  provider: string | undefined,
  cacheMissReason: ProviderCacheMissReason | undefined,
  diagnostics: unknown,
  sent: Record<string, unknown> | undefined,
): CapturedRequest {
  return {
    at,
    body,
    ...(sent ? { sent } : {}),
    ...(usage ? { usage } : {}),
    ...(conversation ? { conversation } : {}),
    ...(provider ? { provider } : {}),
    ...(cacheMissReason ? { cacheMissReason } : {}),
    ...(diagnostics !== undefined ? { diagnostics } : {}),
  };
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

let nodesSeen = 0;

/** No nesting past `MAX_JSON_DEPTH`, at most `MAX_JSON_NODES` values (as `findJsonProblem` counts them), finite numbers only. */
function withinJsonLimits(value: unknown): boolean {
  nodesSeen = 0;
  return valueWithinLimits(value, 0);
}

function valueWithinLimits(value: unknown, depth: number): boolean {
  if (++nodesSeen > MAX_JSON_NODES) return false;
  // JSON.parse reads 1e400 as Infinity: the general check names it (a later step cannot write it back).
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (!valueWithinLimits(value[index], depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (!valueWithinLimits((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/**
 * Parse a capture held in memory (JSONL, one request per line; blank lines ignored). `at` is
 * milliseconds since the epoch or an ISO 8601 time. For files, `readCaptureLines` streams.
 *
 * @example
 * parseCapture('{"at":"2026-11-23T10:00:00Z","body":{"model":"claude-sonnet-5","max_tokens":1,"messages":[]}}\n', 'a.jsonl');
 */
export function parseCapture(text: string, file = 'capture'): CapturedRequest[] {
  const requests: CapturedRequest[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line.length > 0) requests.push(parseCaptureLine(line, index + 1, file));
  }
  return requests;
}

/** A captured request with the line it came from (from 1). */
export interface CaptureLine {
  request: CapturedRequest;
  line: number;
}

/**
 * The requests of a capture file, read line by line: memory stays bounded by the longest
 * line however large the file. Refuses what is not a regular file (a FIFO, `/dev/zero`, a
 * directory) and a line over `maxLineBytes`, with a CaptureError naming file and line. A
 * conversation's history items that repeat its previous line byte for byte are not parsed again:
 * they are the previous request's objects, frozen (`HistoryReuse`); the requests are otherwise
 * what `parseCaptureLine` gives for each line.
 *
 * @example
 * for await (const { request, line } of readCaptureLines('proxy-capture.jsonl')) console.log(line, request.at);
 */
export async function* readCaptureLines(path: string, options: { maxLineBytes?: number } = {}): AsyncGenerator<CaptureLine> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_CAPTURE_LINE_BYTES;
  let lineNumber = 0;
  const reuse = new HistoryReuse({ maxNodes: MAX_JSON_NODES, maxDepth: MAX_JSON_DEPTH });
  try {
    for await (const { bytes, line } of readRegularFileLineBytes(path, { maxLineBytes })) {
      lineNumber = line;
      const reused = reuse.parse(bytes);
      if (reused && reused.nodes <= MAX_JSON_NODES && reused.deepest < MAX_JSON_DEPTH) {
        yield { request: captureLineOf(reused.json, line, path), line };
        continue;
      }
      // Anything else (a blank line, invalid JSON, a value past the limits) is read as before, with its exact error.
      const text = bytes.toString('utf8');
      if (text.trim().length === 0) continue;
      yield { request: parseCaptureLine(text, line, path), line };
    }
  } catch (error) {
    if (error instanceof FileReadError) {
      throw new CaptureError(path, error.problem === 'too_large' ? lineNumber + 1 : 0, readProblem(error));
    }
    throw error;
  }
}

/** Every request of a capture file (read line by line, with `readCaptureLines`' checks). */
export async function readCapture(path: string, options: { maxLineBytes?: number } = {}): Promise<CapturedRequest[]> {
  const requests: CapturedRequest[] = [];
  for await (const { request } of readCaptureLines(path, options)) requests.push(request);
  return requests;
}

function readProblem(error: FileReadError): string {
  switch (error.problem) {
    case 'not_found':
      return 'no such file';
    case 'too_large':
      return error.detail.replace(/^line \d+ is /, 'this line is ');
    case 'not_regular_file':
    case 'unreadable':
      return error.detail;
  }
}
