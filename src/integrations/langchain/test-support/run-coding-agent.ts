import { ChatAnthropic } from '@langchain/anthropic';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { anthropicPromptCachingMiddleware, createAgent, dynamicSystemPromptMiddleware, tool } from 'langchain';
import { z } from 'zod';
import {
  CODING_AGENT_MODEL,
  CODING_AGENT_PERSONA,
  CODING_AGENT_TOOLS,
  CODING_AGENT_TURNS,
  codingAgentTail,
  dynamicSystemPrompt,
  scriptedToolOutput,
} from '../../test-support/coding-agent-script.js';
import { type CachetLangChainOptions, cachetMiddleware } from '../cachet-middleware.js';

/**
 * How the scripted agent is run through LangChain's `createAgent`:
 * - `recipe`: `dynamicSystemPromptMiddleware` (clock and memory in the system prompt, as its docs
 *   show) with `anthropicPromptCachingMiddleware()`;
 * - `cachet`: the same dynamic system prompt with Cachet's `cachetMiddleware()` instead;
 * - `cachet-tail`: a static system prompt, clock and memory passed as Cachet's `tail`.
 */
export type LangChainRunMode = 'recipe' | 'cachet' | 'cachet-tail';

export function langChainTools() {
  return CODING_AGENT_TOOLS.map((definition) => {
    const shape = Object.fromEntries(
      Object.entries(definition.inputSchema.properties).map(([key, property]) => {
        const field = z.string().describe(property.description);
        return [key, definition.inputSchema.required.includes(key) ? field : field.optional()];
      }),
    );
    return tool(async (input: Record<string, unknown>) => scriptedToolOutput(definition.name, input), {
      name: definition.name,
      description: definition.description,
      schema: z.object(shape),
    });
  });
}

export async function runCodingAgentOnLangChain(
  origin: string,
  mode: LangChainRunMode,
  options: { middleware?: CachetLangChainOptions; tailScope?: 'auto' | 'turn' | 'request' } = {},
): Promise<BaseMessage[]> {
  let turn = 0;
  const model = new ChatAnthropic({ model: CODING_AGENT_MODEL, apiKey: 'no-key-needed', anthropicApiUrl: origin, maxRetries: 0 });
  const dynamicPrompt = dynamicSystemPromptMiddleware(() => dynamicSystemPrompt(turn));
  const middleware =
    mode === 'recipe'
      ? [dynamicPrompt, anthropicPromptCachingMiddleware()]
      : mode === 'cachet'
        ? [dynamicPrompt, cachetMiddleware(options.middleware)]
        : [
            cachetMiddleware({
              ...options.middleware,
              tail: (_request, context) => codingAgentTail(context, options.tailScope),
            }),
          ];
  const agent = createAgent({
    model,
    tools: langChainTools(),
    middleware,
    ...(mode === 'cachet-tail' ? { systemPrompt: CODING_AGENT_PERSONA } : {}),
  });
  let messages: BaseMessage[] = [];
  for (const [index, script] of CODING_AGENT_TURNS.entries()) {
    turn = index;
    const result = await agent.invoke({ messages: [...messages, new HumanMessage(script.user)] });
    messages = result.messages;
  }
  return messages;
}
