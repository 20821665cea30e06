import { readAnthropicReply } from '../../providers/anthropic/parse-stream.js';
import { readOpenAIChatReply } from '../../providers/openai-chat/parse-stream.js';
import { readOpenAIResponsesReply } from '../../providers/openai-responses/parse-stream.js';
import type { StreamReader, StreamSummary } from '../../providers/shared/stream-summary.js';
import { causeLine, guardClientStream, type NodeOutgoing } from '../client-stream.js';
import { proxyErrorResponse } from './proxy-errors.js';
import type { WireRoute } from './wire-route.js';

const decoder = new TextDecoder();

/** The proxy's observe stage: the reply read with the provider's stream reader, beside the client's copy. */

/** The stream reader of each wire route's replies (`streamed`: SSE, else one JSON body). */
export const READERS: Record<WireRoute, (streamed: boolean) => StreamReader> = {
  anthropic: readAnthropicReply,
  'openai-chat': readOpenAIChatReply,
  'openai-responses': readOpenAIResponsesReply,
};

/** Read the observer's branch to the end; null when it broke off (upstream error, client gone). */
export async function observe(stream: ReadableStream<Uint8Array>, reader: StreamReader): Promise<StreamSummary | null> {
  const textDecoder = new TextDecoder();
  const source = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await source.read();
      if (done) break;
      reader.push(textDecoder.decode(value, { stream: true }));
    }
  } catch {
    return null;
  }
  reader.push(textDecoder.decode());
  return reader.finish();
}

/**
 * The client's reply and the observer's reading of it. A JSON reply is useless to the client
 * until complete: it is read once, answered with the same bytes, then read for usage (a tee would
 * add stream plumbing for nothing). An SSE reply is teed: the client's branch flows as it
 * arrives (an upstream break closes the client's connection with one line), the other is read
 * to the end. `onSummary` runs a turn of the event loop later, so the reply's last bytes reach
 * the client first.
 */
export async function replyAndObserve(input: {
  /** An upstream reply with a body (the caller passes bodiless replies through). */
  upstream: Response;
  headers: Headers;
  route: WireRoute;
  clientSignal: AbortSignal;
  release: () => void;
  outgoing: NodeOutgoing | undefined;
  onWarning: ((message: string) => void) | undefined;
  track: (work: Promise<void>) => void;
  onSummary: (summary: StreamSummary | null) => void;
}): Promise<Response> {
  const { upstream, headers, route } = input;
  const streamed = (upstream.headers.get('content-type') ?? '').includes('text/event-stream');
  const reader = READERS[route](streamed);
  const init = { status: upstream.status, statusText: upstream.statusText, headers };
  const afterATurn = () => new Promise((resolve) => setImmediate(resolve));
  if (!streamed) {
    let replyBytes: Uint8Array<ArrayBuffer>;
    try {
      replyBytes = new Uint8Array(await upstream.arrayBuffer());
    } catch (error) {
      input.release();
      if (input.clientSignal.aborted) return new Response(null, { status: 499 });
      return proxyErrorResponse(route, 'bad-upstream', `the upstream reply broke off (${causeLine(error)})`);
    }
    input.track(
      (async () => {
        await afterATurn();
        reader.push(decoder.decode(replyBytes));
        input.onSummary(reader.finish());
      })(),
    );
    return new Response(replyBytes, init);
  }
  if (!upstream.body) return new Response(null, init);
  const [toClient, toObserver] = upstream.body.tee();
  input.track(
    observe(toObserver, reader).then(async (summary) => {
      await afterATurn();
      input.onSummary(summary);
    }),
  );
  const onBreak = (error: unknown, bytesSent: number) =>
    input.onWarning?.(
      `cachet proxy: the upstream's reply broke off after ${bytesSent} bytes (${causeLine(error)}); the client's connection was closed`,
    );
  return new Response(guardClientStream(toClient, onBreak, input.outgoing), init);
}
