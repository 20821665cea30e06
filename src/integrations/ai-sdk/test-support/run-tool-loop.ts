import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { recordingFetch } from '../../test-support/recording-fetch.js';
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

/** A tool-loop script through `generateText` and the real `@ai-sdk/anthropic`, with or without Cachet; the bodies sent. */
export async function runOnAiSdk(script: ToolLoopScript, withCachet: boolean): Promise<Array<Record<string, unknown>>> {
  const contents = scriptedContents(script);
  const recorder = recordingFetch((_body, index) =>
    toolLoopReply(contents[index] ?? [{ type: 'text', text: 'done' }], false, `msg_${index}`),
  );
  const anthropic = createAnthropic({ baseURL: 'http://cachet.invalid/v1', apiKey: 'no-key-needed', fetch: recorder.fetch });
  const base = anthropic('claude-sonnet-4-5');
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
