import { createAnthropic } from '@ai-sdk/anthropic-v4';
import {
  generateText,
  jsonSchema,
  type LanguageModel,
  type ModelMessage,
  stepCountIs,
  streamText,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai-v7';
import {
  CODING_AGENT_MODEL,
  CODING_AGENT_PERSONA,
  CODING_AGENT_TOOLS,
  CODING_AGENT_TURNS,
  clockText,
  dynamicSystemPrompt,
  memoryRecallText,
  scriptedToolOutput,
} from '../../test-support/coding-agent-script.js';
import { type CachetMiddlewareOptions, cachetMiddleware } from '../cachet-middleware.js';
import type { AiSdkRunMode } from './run-coding-agent.js';

/** The scripted coding agent on `ai` 7 (Node ≥ 22), the same three modes as on `ai` 6. */
export async function runCodingAgentOnAiSdk7(
  origin: string,
  mode: AiSdkRunMode,
  options: { stream?: boolean; middleware?: CachetMiddlewareOptions } = {},
): Promise<ModelMessage[]> {
  const anthropic = createAnthropic({ baseURL: `${origin}/v1`, apiKey: 'no-key-needed' });
  const base = anthropic(CODING_AGENT_MODEL);
  const model = mode === 'recipe' ? base : wrapLanguageModel({ model: base, middleware: cachetMiddleware(options.middleware) });
  const tools: ToolSet = Object.fromEntries(
    CODING_AGENT_TOOLS.map((definition) => [
      definition.name,
      tool({
        description: definition.description,
        inputSchema: jsonSchema<Record<string, unknown>>(definition.inputSchema),
        execute: async (input) => scriptedToolOutput(definition.name, input),
      }),
    ]),
  );
  // The cookbook recipe as documented: mark the final message for Anthropic models in prepareStep.
  const addCacheControlToMessages = ({ messages, model: stepModel }: { messages: ModelMessage[]; model: LanguageModel }) => {
    if (messages.length === 0 || typeof stepModel === 'string' || !stepModel.provider.startsWith('anthropic')) return messages;
    return messages.map((message, index) =>
      index === messages.length - 1
        ? { ...message, providerOptions: { ...message.providerOptions, anthropic: { cacheControl: { type: 'ephemeral' } } } }
        : message,
    );
  };
  const messages: ModelMessage[] = [];
  for (const [turn, script] of CODING_AGENT_TURNS.entries()) {
    messages.push({ role: 'user', content: script.user });
    const call = {
      model,
      tools,
      messages,
      stopWhen: stepCountIs(6),
      ...(mode === 'cachet-tail'
        ? { system: CODING_AGENT_PERSONA, providerOptions: { cachet: { tail: [clockText(turn), memoryRecallText(turn)] } } }
        : { system: dynamicSystemPrompt(turn) }),
      ...(mode === 'recipe'
        ? {
            prepareStep: ({ messages: stepMessages }: { messages: ModelMessage[] }) => ({
              messages: addCacheControlToMessages({ messages: stepMessages, model }),
            }),
          }
        : {}),
    };
    if (options.stream) {
      const result = streamText(call);
      await result.consumeStream();
      // ai 7: `response` is the final step's; `responseMessages` holds every step's messages.
      messages.push(...(await result.responseMessages));
    } else {
      const result = await generateText(call);
      messages.push(...result.responseMessages);
    }
  }
  return messages;
}
