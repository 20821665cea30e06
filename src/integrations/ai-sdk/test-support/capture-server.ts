import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Messages API reply for a capture server to answer with. */
export const CANNED_REPLY = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'Done.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
};

/** A local HTTP server that records each request body and answers with canned JSON. */
export interface CaptureServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  bodies: unknown[];
  paths: string[];
  /** The JSON the next requests get back. */
  respondWith(response: unknown): void;
  close(): Promise<void>;
}

/** `beforeReply`: awaited after a request's body arrives and before its answer (a test holds the reply with it). */
export async function startCaptureServer(
  initial: unknown,
  options: { beforeReply?: () => Promise<void> } = {},
): Promise<CaptureServer> {
  let response = initial;
  const bodies: unknown[] = [];
  const paths: string[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      paths.push(incoming.url ?? '');
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      void (options.beforeReply?.() ?? Promise.resolve()).then(() => {
        outgoing.writeHead(200, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify(response));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    bodies,
    paths,
    respondWith: (next) => {
      response = next;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
