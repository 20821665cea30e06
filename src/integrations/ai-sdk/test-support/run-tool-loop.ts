import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { chatCompletionReply, responsesReply } from '../../test-support/openai-replies.js';
import { recordingFetch } from '../../test-support/recording-fetch.js';
import type { ScriptedAnswer } from '../../test-support/scripted-server.js';
import {
  scriptedContents,
  scriptedSystem,
  scriptedTail,
  TINY_PNG,
  TOOL_LOOP_TOOL,
  type ToolLoopScript,
  toolLoopReply,
} from '../../test-support/tool-loop-script.js';
import { cachetMiddleware } from '../cachet-middleware.js';

type Block = Record<string, unknown>;
type ModelOf = (fetch: typeof globalThis.fetch) => Parameters<typeof wrapLanguageModel>[0]['model'];

/** A tool-loop script through `generateText` and the real `@ai-sdk/anthropic`, with or without Cachet; the bodies sent. */
export function runOnAiSdk(script: ToolLoopScript, withCachet: boolean): Promise<Block[]> {
  return runScript(script, withCachet, {
    model: (fetch) =>
      createAnthropic({ baseURL: 'http://cachet.invalid/v1', apiKey: 'no-key-needed', fetch })('claude-sonnet-4-5'),
    reply: (content, index) => toolLoopReply(content, false, `msg_${index}`),
  });
}

/**
 * A tool-loop script through `generateText` and the real `@ai-sdk/openai` (Chat Completions or
 * Responses), with or without Cachet; the bodies sent.
 */
export function runOnAiSdkOpenAI(api: 'chat' | 'responses') {
  return (script: ToolLoopScript, withCachet: boolean): Promise<Block[]> =>
    runScript(script, withCachet, {
      model: (fetch) => {
        const openai = createOpenAI({ baseURL: 'http://cachet.invalid/v1', apiKey: 'no-key-needed', fetch });
        return api === 'chat' ? openai.chat('gpt-4.1') : openai.responses('gpt-4.1');
      },
      reply: (content, index) =>
        api === 'chat' ? chatCompletionReply(content, `call_${index}`) : responsesReply(content, `${index}`),
    });
}

/** The script's turns sent one by one through `generateText` on the model the provider builds. */
async function runScript(
  script: ToolLoopScript,
  withCachet: boolean,
  provider: { model: ModelOf; reply: (content: Block[], index: number) => ScriptedAnswer },
): Promise<Block[]> {
  const contents = scriptedContents(script);
  const recorder = recordingFetch((_body, index) => provider.reply(contents[index] ?? [{ type: 'text', text: 'done' }], index));
  const base = provider.model(recorder.fetch);
  const model = withCachet
    ? wrapLanguageModel({
        model: base,
        middleware: cachetMiddleware({
          existingMarkers: script.existingMarkers,
          tail: () => scriptedTail(script),
          ...(script.volatileSystem ? { volatile: 'auto' as const } : {}),
        }),
      })
    : base;
  const tools = {
    [TOOL_LOOP_TOOL.name]: tool({
      description: TOOL_LOOP_TOOL.description,
      inputSchema: jsonSchema<{ query: string }>(TOOL_LOOP_TOOL.inputSchema),
      execute: async ({ query }) => `found ${query}`,
    }),
  };
  const messages: ModelMessage[] = [];
  for (const [turnIndex, turn] of script.turns.entries()) {
    messages.push(
      turn.image
        ? {
            role: 'user',
            content: [
              { type: 'text', text: turn.userText },
              { type: 'image', image: TINY_PNG, mediaType: 'image/png' },
            ],
          }
        : { role: 'user', content: turn.userText },
    );
    const result = await generateText({
      model,
      tools,
      messages,
      system: scriptedSystem(script, turnIndex),
      stopWhen: stepCountIs(10),
    });
    messages.push(...result.response.messages);
  }
  return recorder.bodies;
}
