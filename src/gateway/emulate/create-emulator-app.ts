import { findJsonProblem } from '../../model/json-value-check.js';
import { joinPath } from '../../model/validate.js';
import type { HttpApp } from '../../server/http-app.js';
import { honoCore } from '../../server/http-peers.js';
import { readLimitedBody } from '../http/read-limited-body.js';
import { isLoopbackHostHeader } from '../listen-policy.js';
import { answerAnthropic, anthropicError } from './anthropic-emulator.js';
import { type EmulatorResponse, toResponse } from './emulator-response.js';
import { createEmulatorState } from './emulator-state.js';
import { answerChat, answerResponses, openAIError } from './openai-emulator.js';
import { parseClockHeader } from './parse-clock-header.js';
import type { ScriptedReply } from './reply-script.js';
import type { ResponsesStoreStats } from './responses-store.js';

/** Which API surfaces the emulator serves. */
export type EmulatedProvider = 'anthropic' | 'openai' | 'openrouter' | 'all';

export interface EmulatorOptions {
  /**
   * Answer only requests whose `Host` names this machine (127.0.0.1, localhost, [::1]) [true];
   * `startEmulator` turns it off only for a non-loopback binding the operator allowed.
   */
  hostGuard?: boolean;
  /** [all] `anthropic`: /v1/messages; `openai`: /v1/chat/completions and /v1/responses; `openrouter`: /api/v1/chat/completions. */
  provider?: EmulatedProvider;
  /** Replies in request order; afterwards (or without a script) a deterministic echo. */
  replies?: readonly ScriptedReply[];
  /** The emulator's clock [Date.now]; a request's `x-cachet-clock` header (ms or ISO 8601) overrides it. */
  now?: () => number;
  /** When set, requests must carry this key (`x-api-key` or `Authorization: Bearer`), else 401. */
  apiKey?: string;
  /**
   * Largest accepted body in bytes [32 MiB, the Messages API limit]; larger bodies get 413 as
   * soon as the declared length or the bytes read so far exceed it (a chunked upload is never
   * buffered whole).
   */
  maxBodyBytes?: number;
  /**
   * Budget of the Responses API store kept for `previous_response_id`, in bytes of stored JSON
   * [256 MiB]. The oldest responses are dropped first (counted in `stats().responses.evictions`);
   * a dropped id answers 400 like an unknown one.
   */
  responsesStoreBytes?: number;
  /** Requests kept in `received`, newest last [1,000]; older ones are dropped so a long run does not grow. */
  keepReceived?: number;
}

/** What the emulator holds, for tests and monitoring. */
export interface EmulatorStats {
  responses: ResponsesStoreStats;
}

/** A request the emulator received: the path and the body exactly as sent (never the headers). */
export interface ReceivedRequest {
  path: string;
  body: string;
  at: number;
}

export const CLOCK_HEADER = 'x-cachet-clock';
const decoder = new TextDecoder();
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

type Surface = 'anthropic' | 'openai';
type Handler = (body: unknown, at: number) => EmulatorResponse;

/**
 * The emulator as a Hono app: provider APIs answered from Cachet's cache models, with
 * provider-shaped errors. `received` lists what arrived, for tests comparing bytes.
 *
 * @example
 * const { app, received } = createEmulatorApp({ provider: 'anthropic' });
 * const response = await app.request('/v1/messages', { method: 'POST', body: JSON.stringify(body) });
 */
export function createEmulatorApp(options: EmulatorOptions = {}): {
  app: HttpApp;
  received: ReceivedRequest[];
  stats: () => EmulatorStats;
} {
  const state = createEmulatorState(options.replies, options.responsesStoreBytes);
  const surfaces = options.provider ?? 'all';
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const received: ReceivedRequest[] = [];
  const keepReceived = options.keepReceived ?? 1_000;
  const { Hono: HonoApp } = honoCore('the emulator (createEmulatorApp)');
  const app = new HonoApp();

  const route = (path: string, surface: Surface, handler: Handler) => {
    app.post(path, async (context) => {
      const error = (status: number, type: string, message: string) =>
        toResponse(surface === 'anthropic' ? anthropicError(status, type, message) : openAIError(status, type, message));
      if ((options.hostGuard ?? true) && !isLoopbackHostHeader(context.req.header('host') ?? new URL(context.req.url).host)) {
        return error(403, 'permission_error', 'this emulator answers only Host: 127.0.0.1, localhost or [::1]');
      }
      if (options.apiKey !== undefined && keyOf(context.req.raw.headers) !== options.apiKey) {
        return error(401, 'authentication_error', 'invalid x-api-key');
      }
      const clockHeader = context.req.header(CLOCK_HEADER);
      const at = clockHeader === undefined ? now() : parseClockHeader(clockHeader);
      if (at === null) {
        return error(
          400,
          'invalid_request_error',
          `${CLOCK_HEADER}: expected whole milliseconds since the epoch (0 to 8.64e15) or an ISO 8601 time, got ${JSON.stringify(clockHeader?.slice(0, 64))}`,
        );
      }
      const bytes = await readLimitedBody(context.req.raw, maxBodyBytes);
      if (bytes === null) {
        return error(413, 'request_too_large', `Request exceeds the maximum size of ${maxBodyBytes} bytes`);
      }
      const text = decoder.decode(bytes);
      received.push({ path, body: text, at });
      if (received.length > keepReceived) received.splice(0, received.length - keepReceived);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return error(400, 'invalid_request_error', 'The request body is not valid JSON.');
      }
      // Every handler walks the body recursively: hostile nesting is refused here, not by overflowing the stack.
      const problem = findJsonProblem(body);
      if (problem) return error(400, 'invalid_request_error', `${joinPath('body', problem.path)}: expected ${problem.message}`);
      return toResponse(handler(body, at));
    });
  };

  const serveAnthropic = () => route('/v1/messages', 'anthropic', (body, at) => answerAnthropic(state, body, at));
  const serveOpenAI = () => {
    route('/v1/chat/completions', 'openai', (body, at) => answerChat(state, body, at));
    route('/v1/responses', 'openai', (body, at) => answerResponses(state, body, at));
  };
  const serveOpenRouter = () =>
    route('/api/v1/chat/completions', 'openai', (body, at) => answerChat(state, body, at, state.openrouterCache));
  const served: Record<EmulatedProvider, ReadonlyArray<() => void>> = {
    anthropic: [serveAnthropic],
    openai: [serveOpenAI],
    openrouter: [serveOpenRouter],
    all: [serveAnthropic, serveOpenAI, serveOpenRouter],
  };
  for (const serve of served[surfaces]) serve();
  app.notFound((context) =>
    context.json(
      { error: { message: `cachet emulate: no route ${context.req.method} ${context.req.path}`, type: 'not_found_error' } },
      404,
    ),
  );
  return { app, received, stats: () => ({ responses: state.responsesStats() }) };
}

function keyOf(headers: Headers): string | null {
  const direct = headers.get('x-api-key');
  if (direct) return direct;
  const authorization = headers.get('authorization');
  return authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : null;
}
