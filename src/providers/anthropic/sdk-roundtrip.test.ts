import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicAdapter } from './index.js';
import { imagesAndDocuments, parallelToolLoop, plainChat, thinkingToolLoop } from './test-support/fixtures.js';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A stand-in for the Messages API on 127.0.0.1: records what arrives and answers with a fixed message. */
let server: Server;
let baseURL: string;
const received: Received[] = [];
const reply = {
  id: 'msg_local',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-5',
  content: [{ type: 'text', text: 'ok', citations: null }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: {
    input_tokens: 9,
    cache_creation_input_tokens: 120,
    cache_read_input_tokens: 3000,
    cache_creation: { ephemeral_5m_input_tokens: 20, ephemeral_1h_input_tokens: 100 },
    output_tokens: 2,
  },
};

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the official SDK sends assembled bodies unchanged', () => {
  it.each([
    ['plain chat', plainChat],
    ['parallel tool loop', parallelToolLoop],
    ['thinking with signature', thinkingToolLoop],
    ['images and documents', imagesAndDocuments],
  ])('%s arrives byte for byte', async (_name, fixture) => {
    // A current model id: the SDK prints a deprecation notice for claude-sonnet-4-5 on every send.
    const { body } = anthropicAdapter.convertRequest({ ...fixture(), model: 'claude-sonnet-5' }, { ttl: { global: '1h' } });
    const client = new Anthropic({ apiKey: 'test-key-not-real', baseURL, maxRetries: 0 });
    const message = await client.messages.create(body);
    const arrived = received.at(-1);
    expect(arrived?.method).toBe('POST');
    expect(arrived?.url).toBe('/v1/messages');
    // SDK 1.12 sends the key as a bearer token; older versions used x-api-key.
    expect(`${arrived?.headers.authorization ?? ''} ${arrived?.headers['x-api-key'] ?? ''}`).toContain('test-key-not-real');
    expect(arrived?.headers['anthropic-version']).toBeTypeOf('string');
    expect(arrived?.body).toBe(JSON.stringify(body));
    expect(anthropicAdapter.parseUsage(message)).toMatchObject({
      uncachedInputTokens: 9,
      cacheReadTokens: 3000,
      cacheWrite5mTokens: 20,
      cacheWrite1hTokens: 100,
      outputTokens: 2,
    });
  });
});
