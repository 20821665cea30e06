import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicReply } from '../test-support/anthropic-replies.js';
import { CODING_AGENT_PERSONA } from '../test-support/coding-agent-script.js';
import { countMarkers } from '../test-support/coding-agent-server.js';
import { type ScriptedServer, startScriptedServer } from '../test-support/scripted-server.js';
import { cachetMiddleware } from './cachet-middleware.js';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const marked = { anthropic: { cacheControl: { type: 'ephemeral' as const } } };

/** Ten turns of history, every user message marked by the caller (the markers a recipe leaves behind). */
function markedHistory(): ModelMessage[] {
  return Array.from({ length: 10 }, (_, index): ModelMessage[] => [
    { role: 'user', content: [{ type: 'text', text: `question ${index}`, providerOptions: marked }] },
    { role: 'assistant', content: `answer ${index}` },
  ])
    .flat()
    .concat([{ role: 'user', content: 'last question' }]);
}

async function anthropicBodyWith(existingMarkers: 'replace' | 'keep') {
  const server = await startScriptedServer(() => anthropicReply({ text: 'ok' }, false));
  servers.push(server);
  const anthropic = createAnthropic({ baseURL: `${server.origin}/v1`, apiKey: 'no-key-needed' });
  const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: cachetMiddleware({ existingMarkers }) });
  await generateText({ model, system: CODING_AGENT_PERSONA, messages: markedHistory() });
  return server.bodies[0]!;
}

describe('cachetMiddleware: markers the caller already set', () => {
  it('replace: the caller’s ten markers give way to Cachet’s plan', async () => {
    const body = await anthropicBodyWith('replace');
    expect(countMarkers(body)).toBeGreaterThan(0);
    expect(countMarkers(body)).toBeLessThanOrEqual(4);
    const messages = body.messages as Array<{ content: Array<{ text?: string; cache_control?: unknown }> }>;
    // The history end (the message before the last question's turn) carries Cachet's marker.
    expect(messages.at(-1)!.content.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
  });

  it('keep: the caller’s markers take slots first, and never more than four are sent', async () => {
    const body = await anthropicBodyWith('keep');
    expect(countMarkers(body)).toBe(4);
  });
});

describe('cachetMiddleware with @ai-sdk/openai', () => {
  it('sets prompt_cache_key from the conversation id and appends the tail to the last user message', async () => {
    const completion = {
      id: 'c1',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-5',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11, prompt_tokens_details: { cached_tokens: 0 } },
    };
    const server = await startScriptedServer(() => ({ kind: 'json', body: completion }));
    servers.push(server);
    const openai = createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'no-key-needed' });
    const model = wrapLanguageModel({ model: openai.chat('gpt-5'), middleware: cachetMiddleware({ conversationId: 'conv-9' }) });
    await generateText({
      model,
      system: 'You are terse.',
      prompt: 'hello',
      providerOptions: { cachet: { tail: 'Current time: 09:00' } },
    });
    const body = server.bodies[0]!;
    expect(body.prompt_cache_key).toBe('cachet-conv-9');
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    expect(messages[0]!.content).toBe('You are terse.'); // system or developer role, as @ai-sdk/openai picks for the model
    expect(JSON.stringify(messages.at(-1))).toContain('Current time: 09:00');
  });
});
