import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../model/request.js';
import { anthropicAdapter } from '../../providers/anthropic/index.js';
import type { AnthropicOptions } from '../../providers/anthropic/options.js';
import {
  fixtureSession,
  imagesAndDocuments,
  parallelToolLoop,
  plainChat,
  sessionStaticPair,
  thinkingToolLoop,
} from '../../providers/anthropic/test-support/fixtures.js';
import { assemble } from '../../session/assemble.js';
import { CANNED_REPLY, type CaptureServer, startCaptureServer } from './test-support/capture-server.js';
import { cacheControlPaths, withoutCacheControl } from './test-support/wire-paths.js';
import { toAiSdkCall } from './to-ai-sdk-call.js';

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer(CANNED_REPLY);
});
afterAll(async () => {
  await server.close();
});

type WireBody = { system?: unknown; tools?: unknown; messages: unknown; max_tokens: number; thinking?: unknown };

/** What Cachet's own adapter sends, and what the AI SDK's Anthropic provider sends for the same request. */
async function bothBodies(request: CanonicalRequest, options: AnthropicOptions = {}) {
  const cachet = JSON.parse(JSON.stringify(anthropicAdapter.convertRequest(request, options).body)) as WireBody;
  const anthropic = createAnthropic({ baseURL: `${server.origin}/v1`, apiKey: 'test' });
  await generateText({ model: anthropic(request.model), ...toAiSdkCall(request, { provider: 'anthropic', ...options }) });
  const sent = server.bodies.at(-1) as WireBody;
  return { cachet, sent };
}

/** A deployment whose global zone is big enough for every breakpoint the planner places. */
function longSession() {
  const guidelines = Array.from({ length: 600 }, (_, index) => `Guideline ${index}: keep diffs small and tests honest.`).join(
    '\n',
  );
  return fixtureSession({
    globalSystem: [
      { label: 'persona', text: 'You are a careful coding agent.' },
      { label: 'guidelines', text: guidelines },
    ],
    sessionStatic: { system: [{ label: 'project', text: `Project: demo.\n${'Layout notes. '.repeat(400)}` }] },
  });
}

describe('toAiSdkCall through the AI SDK Anthropic provider', () => {
  it('sends Cachet’s system, tools and messages byte for byte, markers at the same paths', async () => {
    const { cachet, sent } = await bothBodies(plainChat());
    expect(server.paths.at(-1)).toBe('/v1/messages');
    expect(Object.keys(cacheControlPaths(cachet)).length).toBeGreaterThan(0);
    expect(cacheControlPaths(sent)).toEqual(cacheControlPaths(cachet));
    expect(JSON.stringify(sent.system)).toBe(JSON.stringify(cachet.system));
    expect(JSON.stringify(sent.tools)).toBe(JSON.stringify(cachet.tools));
    expect(JSON.stringify(sent.messages)).toBe(JSON.stringify(cachet.messages));
    expect(sent.max_tokens).toBe(cachet.max_tokens);
  });

  it('keeps the tail after the tool results of the final user message in a tool loop (no new user turn)', async () => {
    const session = longSession();
    session.appendUserText('Find the TODOs.');
    session.append({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Searching.' },
        { type: 'tool_use', id: 'call_1', name: 'grep', input: { pattern: 'TODO', glob: '*.ts' } },
        { type: 'tool_use', id: 'call_2', name: 'read_file', input: { path: 'a.ts' } },
      ],
    });
    session.append({
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'call_1', content: [{ type: 'text', text: 'a.ts:1' }] },
        { type: 'tool_result', toolUseId: 'call_2', content: [{ type: 'text', text: 'const a = 1; // TODO' }], isError: true },
      ],
    });
    const request = assemble(session);
    expect(request.tail.inToolLoop).toBe(true);
    const { cachet, sent } = await bothBodies(request, { ttl: { global: '1h' } });

    const markers = cacheControlPaths(cachet);
    expect(Object.keys(markers).length).toBeGreaterThanOrEqual(3);
    expect(cacheControlPaths(sent)).toEqual(markers);
    expect(JSON.stringify(sent.system)).toBe(JSON.stringify(cachet.system));
    expect(JSON.stringify(sent.tools)).toBe(JSON.stringify(cachet.tools));
    // The error tool result is the one place the bytes differ: the AI SDK sends `is_error` content as a string.
    expect(withoutErrorContent(sent.messages)).toEqual(withoutErrorContent(cachet.messages));

    const messages = sent.messages as Array<{ role: string; content: Array<{ type: string; text?: string }> }>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    const last = messages[2]?.content ?? [];
    expect(last.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'text', 'text']);
    expect(last[2]?.text).toMatch(/^\[current time\]/);
    expect(last[3]?.text).toContain('Recall for turn 1');
  });

  it('matches the adapter on parallel tool loops, signed and redacted thinking, session pairs and media', async () => {
    for (const request of [parallelToolLoop(), thinkingToolLoop(), sessionStaticPair(), imagesAndDocuments()]) {
      const { cachet, sent } = await bothBodies(request);
      expect(cacheControlPaths(sent)).toEqual(cacheControlPaths(cachet));
      expect(withoutCacheControl(sent.messages)).toEqual(withoutCacheControl(cachet.messages));
      expect(JSON.stringify(sent.system)).toBe(JSON.stringify(cachet.system));
    }
  });

  it('carries automatic mode, thinking and tool choice as provider options', async () => {
    const thinking = await bothBodies(thinkingToolLoop(), { breakpoints: 'automatic' });
    const automatic = thinking.sent as WireBody & { cache_control?: unknown };
    expect(automatic.cache_control).toEqual({ type: 'ephemeral' });
    expect(automatic.cache_control).toEqual((thinking.cachet as typeof automatic).cache_control);
    expect(automatic.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });

    // Forced tool use and thinking exclude each other on Anthropic, so tool choice is checked without thinking.
    server.respondWith({
      ...CANNED_REPLY,
      content: [{ type: 'tool_use', id: 'call_9', name: 'read_file', input: { path: 'b.ts' } }],
      stop_reason: 'tool_use',
    });
    const forced = await bothBodies(plainChat({ params: { toolChoice: { type: 'any' }, parallelToolCalls: false } })).finally(
      () => server.respondWith(CANNED_REPLY),
    );
    const body = forced.sent as WireBody & { tool_choice?: unknown };
    expect(body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(body.tool_choice).toEqual((forced.cachet as typeof body).tool_choice);
  });

  it('a second request reads the first one’s prefix: identical bytes up to the new history', async () => {
    const session = longSession();
    session.appendUserText('Hello.');
    await bothBodies(assemble(session));
    const first = server.bodies.at(-1) as WireBody;
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] });
    session.appendUserText('Run the tests.');
    await bothBodies(assemble(session));
    const second = server.bodies.at(-1) as WireBody;
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    expect(JSON.stringify(second.system)).toBe(JSON.stringify(first.system));
    // The tail rode in the first request's last user message; what was persisted of it comes back unchanged.
    const firstUser = (first.messages as Array<{ content: Array<{ text?: string }> }>)[0]?.content ?? [];
    const secondUser = (second.messages as Array<{ content: Array<{ text?: string }> }>)[0]?.content ?? [];
    expect(firstUser.map((block) => block.text)).toEqual(expect.arrayContaining(['Hello.']));
    expect(withoutCacheControl(secondUser)).toEqual([{ type: 'text', text: 'Hello.' }]);
  });
});

describe('toAiSdkCall options', () => {
  it('refuses an unknown provider and integer tool names', () => {
    expect(() => toAiSdkCall(plainChat(), { provider: 'gemini' } as never)).toThrow(/options.provider/);
    const session = fixtureSession({ tools: [{ name: '7', description: 'Seven', inputSchema: { type: 'object' } }] });
    session.appendUserText('Hi.');
    expect(() => toAiSdkCall(assemble(session), { provider: 'anthropic' })).toThrow(/tools\[0\]\.name/);
  });
});

/** Messages with the content of error tool results dropped (the AI SDK sends it as a string). */
function withoutErrorContent(messages: unknown): unknown {
  return JSON.parse(
    JSON.stringify(messages, function (this: Record<string, unknown>, key, entry: unknown) {
      return key === 'content' && this.type === 'tool_result' && this.is_error === true ? undefined : entry;
    }),
  );
}
