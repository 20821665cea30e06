import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the local server saw it: path, body text byte for byte, and the auth header. */
export interface ReceivedRequest {
  path: string;
  text: string;
  authorization: string | undefined;
}

export interface ReplyServer {
  /** `http://127.0.0.1:<port>/v1`, the SDK client's `baseURL`. */
  baseURL: string;
  /** `http://127.0.0.1:<port>`, for a provider whose base URL has no `/v1` (api.deepseek.com). */
  origin: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.on('error', reject);
  });
}

/**
 * A local stand-in for the OpenAI API (no network): records each request and answers it with
 * `replyFor(path)` as JSON, so an official SDK client can be driven end to end in a test.
 */
export async function startReplyServer(replyFor: (path: string) => unknown): Promise<ReplyServer> {
  const received: ReceivedRequest[] = [];
  const server = createServer(async (incoming, outgoing) => {
    const text = await readBody(incoming);
    const path = incoming.url ?? '';
    received.push({ path, text, authorization: incoming.headers.authorization });
    outgoing.writeHead(200, { 'content-type': 'application/json' });
    outgoing.end(JSON.stringify(replyFor(path)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseURL: `${origin}/v1`,
    origin,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
