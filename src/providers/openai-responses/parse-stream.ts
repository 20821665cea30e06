import { emptySummary, openAIJsonReader, type StreamReader, sseReader } from '../shared/stream-summary.js';
import { parseOpenAIResponsesUsage } from './parse-usage.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null;

/**
 * Read a Responses API reply as it arrives: SSE events (`response.completed` carries the
 * whole response with its usage; `response.failed`, `response.incomplete` and `error` end it
 * otherwise) or one JSON body.
 *
 * @example
 * const reader = readOpenAIResponsesReply(false);
 * reader.push(JSON.stringify(response));
 * reader.finish().responseId; // 'resp_…'
 */
export function readOpenAIResponsesReply(streamed: boolean): StreamReader {
  if (!streamed) return openAIJsonReader(parseOpenAIResponsesUsage);
  const summary = emptySummary();
  return sseReader((event, data) => {
    if (!isRecord(data)) return;
    const type = typeof data.type === 'string' ? data.type : event;
    const response = isRecord(data.response) ? data.response : null;
    if (response && typeof response.id === 'string') summary.responseId = response.id;
    switch (type) {
      case 'response.completed':
      case 'response.incomplete':
        if (response && isRecord(response.usage)) summary.usage = parseOpenAIResponsesUsage(response);
        summary.complete = type === 'response.completed';
        break;
      case 'response.failed':
        summary.error = isRecord(response?.error) ? String(response.error.message ?? 'failed') : 'response failed';
        break;
      case 'error':
        summary.error = String(data.message ?? 'error');
        break;
      default:
        break;
    }
  }, summary);
}
