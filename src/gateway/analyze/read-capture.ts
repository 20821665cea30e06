import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CachetError } from '../../model/errors.js';
import type { ProviderCacheMissReason } from '../../model/usage.js';

/** One captured request: the proxy's capture lines, or a plain `{ at, body, usage? }` line. */
export interface CapturedRequest {
  /** Request start, ms since the epoch. */
  at: number;
  body: Record<string, unknown>;
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
    super('invalid_capture', `${file}:${line}: ${problem}`);
    this.line = line;
  }
}

/**
 * Parse a capture (JSONL, one request per line; blank lines ignored). `at` is milliseconds
 * since the epoch or an ISO 8601 time.
 *
 * @example
 * parseCapture('{"at":"2026-11-23T10:00:00Z","body":{"model":"claude-sonnet-5","max_tokens":1,"messages":[]}}\n', 'a.jsonl');
 */
export function parseCapture(text: string, file = 'capture'): CapturedRequest[] {
  const requests: CapturedRequest[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line.length === 0) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new CaptureError(file, index + 1, `not valid JSON (${(error as Error).message})`);
    }
    const parsed = lineSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new CaptureError(file, index + 1, `${issue.path.join('.') || 'line'}: ${issue.message}`);
    }
    const { at, body, usage, conversation, provider, cacheMissReason } = parsed.data;
    const diagnostics = parsed.data.diagnostics ?? usage?.diagnostics;
    const time = typeof at === 'number' ? at : Date.parse(at);
    if (Number.isNaN(time))
      throw new CaptureError(file, index + 1, `at: expected milliseconds or an ISO 8601 time, got ${JSON.stringify(at)}`);
    requests.push({
      at: time,
      body,
      ...(usage ? { usage } : {}),
      ...(conversation ? { conversation } : {}),
      ...(provider ? { provider } : {}),
      ...(cacheMissReason ? { cacheMissReason } : {}),
      ...(diagnostics !== undefined ? { diagnostics } : {}),
    });
  }
  return requests;
}

export async function readCapture(path: string): Promise<CapturedRequest[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CaptureError(path, 0, code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(error)})`);
  }
  return parseCapture(text, path);
}
