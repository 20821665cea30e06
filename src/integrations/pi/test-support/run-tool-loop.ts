import { type Context, complete, type Model, Type } from '@mariozechner/pi-ai';
import { chatCompletionChunks } from '../../test-support/openai-replies.js';
import type { ScriptedServer } from '../../test-support/scripted-server.js';
import { startScriptedServer } from '../../test-support/scripted-server.js';
import {
  scriptedContents,
  scriptedSystem,
  scriptedTail,
  TINY_PNG,
  TOOL_LOOP_TOOL,
  type ToolLoopScript,
  toolLoopReply,
} from '../../test-support/tool-loop-script.js';
import { cachetPiHooks } from '../cachet-pi-hooks.js';

/** One loopback Chat Completions API for many runs: `play(script)` sets the replies the next run gets. */
export async function startOpenAIToolLoopServer(): Promise<ScriptedServer & { play(script: ToolLoopScript): void }> {
  let contents: Array<Array<Record<string, unknown>>> = [];
  let first = 0;
  const server = await startScriptedServer((_body, index) =>
    chatCompletionChunks(contents[index - first] ?? [{ type: 'text', text: 'done' }], `chatcmpl_${index}`),
  );
  return {
    ...server,
    play(script) {
      contents = scriptedContents(script);
      first = server.bodies.length;
    },
  };
}

/** One loopback Messages API for many runs: `play(script)` sets the replies the next run gets. */
export async function startToolLoopServer(): Promise<ScriptedServer & { play(script: ToolLoopScript): void }> {
  let contents: Array<Array<Record<string, unknown>>> = [];
  let first = 0;
  const server = await startScriptedServer((_body, index) =>
    toolLoopReply(contents[index - first] ?? [{ type: 'text', text: 'done' }], true, `msg_${index}`),
  );
  return {
    ...server,
    play(script) {
      contents = scriptedContents(script);
      first = server.bodies.length;
    },
  };
}

/** A tool-loop script as a hand-written pi-ai loop, with or without Cachet's hooks; the bodies sent. */
export async function runOnPi(
  server: Awaited<ReturnType<typeof startToolLoopServer>>,
  script: ToolLoopScript,
  withCachet: boolean,
  api: 'anthropic-messages' | 'openai-completions' = 'anthropic-messages',
): Promise<Array<Record<string, unknown>>> {
  server.play(script);
  const first = server.bodies.length;
  const model: Model<'anthropic-messages' | 'openai-completions'> =
    api === 'openai-completions'
      ? {
          id: 'gpt-4.1',
          name: 'GPT-4.1 (local)',
          api,
          provider: 'openai',
          baseUrl: `${server.origin}/v1`,
          reasoning: false,
          input: ['text', 'image'],
          cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
          contextWindow: 1_000_000,
          maxTokens: 8_192,
        }
      : {
          id: 'claude-sonnet-4-5',
          name: 'Claude Sonnet 4.5 (local)',
          api: 'anthropic-messages',
          provider: 'anthropic',
          baseUrl: server.origin,
          reasoning: false,
          input: ['text', 'image'],
          cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
          contextWindow: 200_000,
          maxTokens: 8_192,
        };
  const hooks = cachetPiHooks({
    conversationId: 'tool-loop',
    existingMarkers: script.existingMarkers,
    tail: () => scriptedTail(script),
    ...(script.volatileSystem ? { volatile: 'auto' as const } : {}),
  });
  const context: Context = {
    systemPrompt: scriptedSystem(script, 0),
    messages: [],
    tools: [
      { name: TOOL_LOOP_TOOL.name, description: TOOL_LOOP_TOOL.description, parameters: Type.Unsafe(TOOL_LOOP_TOOL.inputSchema) },
    ],
  };
  for (const [turnIndex, turn] of script.turns.entries()) {
    context.systemPrompt = scriptedSystem(script, turnIndex);
    context.messages.push({
      role: 'user',
      content: turn.image
        ? [
            { type: 'text', text: turn.userText },
            { type: 'image', data: TINY_PNG, mimeType: 'image/png' },
          ]
        : turn.userText,
      timestamp: 0,
    });
    for (let step = 0; step < 10; step++) {
      const reply = await complete(model, context, {
        apiKey: 'no-key-needed',
        maxRetries: 0,
        ...(withCachet ? { onPayload: hooks.onPayload } : {}),
      });
      if (reply.stopReason === 'error') throw new Error(reply.errorMessage ?? 'pi-ai error');
      if (withCachet) hooks.recordUsage(reply);
      context.messages.push(reply);
      const calls = reply.content.filter((block) => block.type === 'toolCall');
      if (calls.length === 0) break;
      for (const call of calls) {
        context.messages.push({
          role: 'toolResult',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: `found ${String(call.arguments.query)}` }],
          isError: false,
          timestamp: 0,
        });
      }
    }
  }
  return server.bodies.slice(first);
}
