import type { ChatAnthropic } from '@langchain/anthropic';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, dynamicSystemPromptMiddleware, tool } from 'langchain';
import { z } from 'zod';
import { chatCompletionReply, responsesReply } from '../../test-support/openai-replies.js';
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
import { recordedChatAnthropic } from './recorded-chat-anthropic.js';

/** A tool-loop script through `createAgent` and the real `ChatAnthropic`, with or without Cachet; the bodies sent. */
export async function runOnLangChain(script: ToolLoopScript, withCachet: boolean): Promise<Array<Record<string, unknown>>> {
  const contents = scriptedContents(script);
  const { recorder, model } = recordedChatAnthropic((_body, index) =>
    toolLoopReply(contents[index] ?? [{ type: 'text', text: 'done' }], false, `msg_${index}`),
  );
  await driveLangChainAgent(model, script, withCachet);
  return recorder.bodies;
}

/** A tool-loop script through `createAgent` and the real `ChatOpenAI` (Chat Completions or Responses), with or without Cachet. */
export function runOnLangChainOpenAI(api: 'chat' | 'responses') {
  return async (script: ToolLoopScript, withCachet: boolean): Promise<Array<Record<string, unknown>>> => {
    const contents = scriptedContents(script);
    const recorder = recordingFetch((_body, index) => {
      const content = contents[index] ?? [{ type: 'text', text: 'done' }];
      return api === 'chat' ? chatCompletionReply(content, `call_${index}`) : responsesReply(content, `${index}`);
    });
    const model = new ChatOpenAI({
      model: 'gpt-4.1',
      apiKey: 'no-key-needed',
      maxRetries: 0,
      useResponsesApi: api === 'responses',
      configuration: { baseURL: 'http://cachet.invalid/v1', fetch: recorder.fetch },
    });
    await driveLangChainAgent(model, script, withCachet);
    return recorder.bodies;
  };
}

/** The script's turns through `createAgent` with the script's system prompt (and Cachet's middleware when asked). */
async function driveLangChainAgent(
  model: ChatAnthropic | ChatOpenAI,
  script: ToolLoopScript,
  withCachet: boolean,
): Promise<void> {
  const lookup = tool(async ({ query }: { query: string }) => `found ${query}`, {
    name: TOOL_LOOP_TOOL.name,
    description: TOOL_LOOP_TOOL.description,
    schema: z.object({ query: z.string() }),
  });
  let turnIndex = 0;
  const agent = createAgent({
    model,
    tools: [lookup],
    middleware: [
      dynamicSystemPromptMiddleware(() => scriptedSystem(script, turnIndex)),
      ...(withCachet
        ? [
            cachetMiddleware({
              existingMarkers: script.existingMarkers,
              tail: () => scriptedTail(script),
              ...(script.volatileSystem ? { volatile: 'auto' as const } : {}),
            }),
          ]
        : []),
    ],
  });
  let messages: BaseMessage[] = [];
  for (const [index, turn] of script.turns.entries()) {
    turnIndex = index;
    const human = turn.image
      ? new HumanMessage({
          content: [
            { type: 'text', text: turn.userText },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG}` } },
          ],
        })
      : new HumanMessage(turn.userText);
    const result = await agent.invoke({ messages: [...messages, human] });
    messages = result.messages;
  }
}
