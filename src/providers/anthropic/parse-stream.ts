import { emptySummary, jsonReader, type StreamReader, sseReader } from '../shared/stream-summary.js';
import { parseAnthropicUsage } from './parse-usage.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null;

/**
 * Read a Messages API reply as it arrives: SSE (`message_start` carries the id, input usage
 * and `diagnostics`; `message_delta` the final counts; `message_stop` ends it) or one JSON body.
 * Usage is merged field by field (later non-null counts win) and parsed with `parseAnthropicUsage`.
 *
 * @example
 * const reader = readAnthropicReply(true);
 * for await (const text of stream) reader.push(text);
 * reader.finish().usage?.cacheReadTokens;
 */
export function readAnthropicReply(streamed: boolean): StreamReader {
  if (!streamed) {
    return jsonReader((body, summary) => {
      if (!isRecord(body)) throw new Error('the reply is not a JSON object');
      if (body.type === 'error') {
        summary.error = errorText(body.error);
        return;
      }
      summary.responseId = typeof body.id === 'string' ? body.id : null;
      summary.usage = parseAnthropicUsage(body);
      summary.complete = true;
    });
  }
  const summary = emptySummary();
  let usage: JsonRecord = {};
  let diagnostics: unknown;
  const reader = sseReader((event, data) => {
    if (!isRecord(data)) return;
    const type = typeof data.type === 'string' ? data.type : event;
    switch (type) {
      case 'message_start': {
        const message = isRecord(data.message) ? data.message : {};
        summary.responseId = typeof message.id === 'string' ? message.id : null;
        if (isRecord(message.usage)) usage = { ...message.usage };
        if ('diagnostics' in message) diagnostics = message.diagnostics;
        break;
      }
      case 'message_delta':
        if (isRecord(data.usage)) {
          for (const [key, value] of Object.entries(data.usage)) {
            // Defined, not assigned: a member named "__proto__" stays a member instead of becoming the prototype.
            if (value !== null && value !== undefined)
              Object.defineProperty(usage, key, { value, enumerable: true, writable: true, configurable: true });
          }
        }
        break;
      case 'message_stop':
        summary.usage = parseAnthropicUsage(diagnostics === undefined ? { usage } : { usage, diagnostics });
        summary.complete = true;
        break;
      case 'error':
        summary.error = errorText(data.error);
        break;
      default:
        break;
    }
  }, summary);
  return reader;
}

function errorText(error: unknown): string {
  if (isRecord(error)) return `${String(error.type ?? 'error')}: ${String(error.message ?? '')}`;
  return 'error event';
}
