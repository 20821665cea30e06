import { emptySummary, openAIJsonReader, type StreamReader, sseReader } from '../shared/stream-summary.js';
import { parseOpenAIChatUsage } from './parse-usage.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null;

/**
 * Read a Chat Completions reply as it arrives: SSE chunks (usage only in the last chunk, and
 * only when the request set `stream_options.include_usage`; `data: [DONE]` ends it) or one
 * JSON body.
 *
 * @example
 * const reader = readOpenAIChatReply(true);
 * reader.push('data: {"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":1}}\n\ndata: [DONE]\n\n');
 * reader.finish().usage?.uncachedInputTokens; // 9
 */
export function readOpenAIChatReply(streamed: boolean): StreamReader {
  if (!streamed) return openAIJsonReader(parseOpenAIChatUsage);
  const summary = emptySummary();
  return sseReader((_event, data, raw) => {
    if (raw === '[DONE]') {
      summary.complete = true;
      return;
    }
    if (!isRecord(data)) return;
    if (isRecord(data.error)) {
      summary.error = String(data.error.message ?? 'error');
      return;
    }
    if (typeof data.id === 'string') summary.responseId ??= data.id;
    if (isRecord(data.usage)) summary.usage = parseOpenAIChatUsage(data);
  }, summary);
}
