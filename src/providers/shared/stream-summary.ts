import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Usage } from '../../model/usage.js';

/** What a reader learned from one reply (streamed or not): its usage, id and whether it finished. */
export interface StreamSummary {
  /** Usage as the provider reported it; null when the reply carried none. */
  usage: Usage | null;
  /** The reply's id (`msg_…`, `chatcmpl-…`, `resp_…`); null when absent. */
  responseId: string | null;
  /** The reply reached its documented end (`message_stop`, `[DONE]`, `response.completed`, or a whole JSON body). */
  complete: boolean;
  /** An error event or an unreadable payload, in a sentence; null when none. */
  error: string | null;
}

/**
 * Reads one reply incrementally. `push` takes decoded text as it arrives (any chunking);
 * `finish` returns what was learned. Readers never throw on bad input: they record it in `error`.
 */
export interface StreamReader {
  push(text: string): void;
  finish(): StreamSummary;
}

/** A reader over Server-Sent Events: `onEvent` sees each event's name and parsed JSON data (or the raw text). */
export function sseReader(
  onEvent: (event: string | undefined, data: unknown, raw: string) => void,
  summary: StreamSummary,
): StreamReader {
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      let data: unknown = message.data;
      if (message.data !== '[DONE]') {
        try {
          data = JSON.parse(message.data);
        } catch {
          summary.error ??= `unreadable event data: ${message.data.slice(0, 80)}`;
          return;
        }
      }
      try {
        onEvent(message.event, data, message.data);
      } catch (error) {
        summary.error ??= error instanceof Error ? error.message : String(error);
      }
    },
  });
  return {
    push(text) {
      parser.feed(text);
    },
    finish() {
      return summary;
    },
  };
}

/** A reader over one whole JSON body; `read` maps the parsed body to a summary. */
export function jsonReader(read: (body: unknown, summary: StreamSummary) => void): StreamReader {
  let text = '';
  return {
    push(chunk) {
      text += chunk;
    },
    finish() {
      const summary: StreamSummary = { usage: null, responseId: null, complete: false, error: null };
      try {
        read(JSON.parse(text), summary);
      } catch (error) {
        summary.error = error instanceof Error ? error.message : String(error);
      }
      return summary;
    },
  };
}

/**
 * A reader over one whole OpenAI-shaped JSON reply (Chat Completions, Responses): an `error`
 * object ends it, otherwise its `id` and `usage` (through `parseUsage`) are read.
 */
export function openAIJsonReader(parseUsage: (body: Record<string, unknown>) => Usage): StreamReader {
  return jsonReader((body, summary) => {
    if (typeof body !== 'object' || body === null) throw new Error('the reply is not a JSON object');
    const reply = body as Record<string, unknown>;
    const error = reply.error;
    if (typeof error === 'object' && error !== null) {
      summary.error = String((error as { message?: unknown }).message ?? 'error');
      return;
    }
    summary.responseId = typeof reply.id === 'string' ? reply.id : null;
    summary.usage = typeof reply.usage === 'object' && reply.usage !== null ? parseUsage(reply) : null;
    summary.complete = true;
  });
}

export function emptySummary(): StreamSummary {
  return { usage: null, responseId: null, complete: false, error: null };
}
