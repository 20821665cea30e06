import { createAnthropic } from '@ai-sdk/anthropic';
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
} from 'ai';
import {
  CODING_AGENT_MODEL,
  CODING_AGENT_PERSONA,
  CODING_AGENT_TOOLS,
  CODING_AGENT_TURNS,
  codingAgentTail,
  dynamicSystemPrompt,
  scriptedToolOutput,
} from '../../test-support/coding-agent-script.js';
import { type CachetMiddlewareOptions, cachetMiddleware } from '../cachet-middleware.js';

/**
 * How the scripted agent is run through the AI SDK:
 * - `recipe`: the AI SDK cookbook's dynamic prompt caching (the last message marked in
 *   `prepareStep`), with clock and memory recall in the system prompt as agents do;
 * - `cachet`: `cachetMiddleware()` with the same dynamic system prompt (no other change);
 * - `cachet-tail`: `cachetMiddleware()` with a static system prompt and clock + recall passed
 *   as the per-call `tail`.
 */
export type AiSdkRunMode = 'recipe' | 'cachet' | 'cachet-tail';

export function aiSdkTools(): ToolSet {
  return Object.fromEntries(
    CODING_AGENT_TOOLS.map((definition) => [
      definition.name,
      tool({
        description: definition.description,
        inputSchema: jsonSchema<Record<string, unknown>>(definition.inputSchema),
        execute: async (input) => scriptedToolOutput(definition.name, input),
      }),
    ]),
  );
}

/** The cookbook recipe's helper, as documented: mark the final message for Anthropic models. */
export function addCacheControlToMessages({
  messages,
  model,
}: {
  messages: ModelMessage[];
  model: LanguageModel;
}): ModelMessage[] {
  if (messages.length === 0) return messages;
  const isAnthropic = typeof model !== 'string' && model.provider.startsWith('anthropic');
  if (!isAnthropic) return messages;
  return messages.map((message, index) =>
    index === messages.length - 1
      ? { ...message, providerOptions: { ...message.providerOptions, anthropic: { cacheControl: { type: 'ephemeral' } } } }
      : message,
  );
}

export async function runCodingAgentOnAiSdk(
  origin: string,
  mode: AiSdkRunMode,
  options: { stream?: boolean; middleware?: CachetMiddlewareOptions; tailScope?: 'auto' | 'turn' | 'request' } = {},
): Promise<ModelMessage[]> {
  const anthropic = createAnthropic({ baseURL: `${origin}/v1`, apiKey: 'no-key-needed' });
  const base = anthropic(CODING_AGENT_MODEL);
  const middleware = cachetMiddleware({
    ...options.middleware,
    ...(mode === 'cachet-tail'
      ? { tail: (_params: unknown, context: { turn: number }) => codingAgentTail(context, options.tailScope) }
      : {}),
  });
  const model = mode === 'recipe' ? base : wrapLanguageModel({ model: base, middleware });
  const tools = aiSdkTools();
  const messages: ModelMessage[] = [];
  for (const [turn, script] of CODING_AGENT_TURNS.entries()) {
    messages.push({ role: 'user', content: script.user });
    const call = {
      model,
      tools,
      messages,
      stopWhen: stepCountIs(6),
      ...(mode === 'cachet-tail' ? { system: CODING_AGENT_PERSONA } : { system: dynamicSystemPrompt(turn) }),
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
      messages.push(...(await result.response).messages);
    } else {
      const result = await generateText(call);
      messages.push(...result.response.messages);
    }
  }
  return messages;
}
