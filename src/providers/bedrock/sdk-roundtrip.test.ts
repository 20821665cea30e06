import { createServer, type Http2Server, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assemble } from '../../session/assemble.js';
import { fixtureSession, PNG_1X1, parallelToolLoop, plainChat, thinkingToolLoop } from '../anthropic/test-support/fixtures.js';
import { bedrockAdapter } from './index.js';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A stand-in for bedrock-runtime on 127.0.0.1: records what arrives and answers with a fixed
 * Converse output. HTTP/2 in clear text, because the client's default handler speaks HTTP/2.
 */
let server: Http2Server;
let endpoint: string;
const received: Received[] = [];
const reply = {
  output: { message: { role: 'assistant', content: [{ text: 'ok' }] } },
  stopReason: 'end_turn',
  usage: {
    inputTokens: 9,
    outputTokens: 2,
    totalTokens: 3131,
    cacheReadInputTokens: 3000,
    cacheWriteInputTokens: 120,
    cacheDetails: [
      { ttl: '1h', inputTokens: 100 },
      { ttl: '5m', inputTokens: 20 },
    ],
  },
  metrics: { latencyMs: 12 },
};

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method,
        url: request.url as string | undefined,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'AKIDTESTNOTREAL', secretAccessKey: 'test-secret-not-real' },
    maxAttempts: 1,
  });
}

/** JSON as the SDK serialises it: blobs as base64 (the replacer sees Buffers before their toJSON runs). */
function bytesAsBase64(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const original = this[key];
  return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : value;
}

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

function withImage() {
  const session = fixtureSession({ model: MODEL });
  session.append({
    role: 'user',
    content: [
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG_1X1 } },
      { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'Spec: a.ts exports a.' }, title: 'spec.txt' },
      { type: 'text', text: 'Does the screenshot match the spec?' },
    ],
  });
  return assemble(session);
}

describe('the AWS SDK sends Converse bodies with their cache points intact', () => {
  it.each([
    ['plain chat', () => plainChat({ model: MODEL })],
    ['parallel tool loop', () => parallelToolLoop({ model: MODEL })],
    ['thinking with signature', () => thinkingToolLoop({ model: MODEL })],
    ['image and text document', withImage],
  ])('%s', async (_name, fixture) => {
    const { body } = bedrockAdapter.convertRequest(fixture(), { ttl: { global: '1h' } });
    const output = await client().send(new ConverseCommand(body));
    const arrived = received.at(-1)!;
    expect(arrived.method).toBe('POST');
    expect(arrived.url).toBe(`/model/${encodeURIComponent(MODEL)}/converse`);
    expect(arrived.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTESTNOTREAL\//);
    const wire = JSON.parse(arrived.body) as Record<string, unknown>;
    // The path carries the model; the JSON carries everything else, bytes as base64.
    const { modelId: _modelId, ...rest } = body;
    expect(wire).toEqual(JSON.parse(JSON.stringify(rest, bytesAsBase64)));
    const cachePoints = arrived.body.match(/"cachePoint":\{[^}]*\}/g) ?? [];
    expect(cachePoints.length).toBeGreaterThan(0);
    expect(cachePoints.length).toBeLessThanOrEqual(4);
    expect(bedrockAdapter.parseUsage(output)).toMatchObject({
      uncachedInputTokens: 9,
      cacheReadTokens: 3000,
      cacheWrite5mTokens: 20,
      cacheWrite1hTokens: 100,
      outputTokens: 2,
    });
  });

  it('pins the wire bytes of a tool loop', async () => {
    const { body } = bedrockAdapter.convertRequest(parallelToolLoop({ model: MODEL }), { ttl: { global: '1h' } });
    await client().send(new ConverseCommand(body));
    await expect(JSON.stringify(JSON.parse(received.at(-1)!.body), null, 2)).toMatchFileSnapshot(
      './__snapshots__/sdk-roundtrip.pins-the-wire-bytes-of-a-tool-loop.json',
    );
  });
});
