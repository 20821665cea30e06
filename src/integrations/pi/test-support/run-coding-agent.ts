import { type AssistantMessage, type Context, complete, type Model, type Tool, Type } from '@mariozechner/pi-ai';
import {
  CODING_AGENT_MODEL,
  CODING_AGENT_PERSONA,
  CODING_AGENT_TOOLS,
  CODING_AGENT_TURNS,
  codingAgentTail,
  dynamicSystemPrompt,
  scriptedToolOutput,
} from '../../test-support/coding-agent-script.js';
import { type CachetPiOptions, cachetPiHooks } from '../cachet-pi-hooks.js';

/**
 * `pi`: pi-ai's own caching, clock + memory in the system prompt; `cachet`: Cachet's hooks on the
 * same dynamic system prompt (with `volatile: 'auto'` when passed); `cachet-tail`: Cachet's hooks
 * with a static system prompt and the tail.
 */
export type PiRunMode = 'pi' | 'cachet' | 'cachet-tail';

export function localPiModel(origin: string): Model<'anthropic-messages'> {
  return {
    id: CODING_AGENT_MODEL,
    name: 'Claude Sonnet 4.5 (local)',
    api: 'anthropic-messages',
    provider: 'anthropic',
    baseUrl: origin,
    reasoning: false,
    input: ['text'],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: 200_000,
    maxTokens: 8_192,
  };
}

/** The scripted coding agent as a hand-written pi-ai tool loop. */
export async function runCodingAgentOnPi(
  origin: string,
  mode: PiRunMode,
  options: Partial<CachetPiOptions> & { tailScope?: 'auto' | 'turn' | 'request' } = {},
): Promise<AssistantMessage[]> {
  const model = localPiModel(origin);
  const { tailScope, ...hookOptions } = options;
  const hooks = cachetPiHooks({
    conversationId: 'pi-run',
    ...hookOptions,
    ...(mode === 'cachet-tail' ? { tail: (context) => codingAgentTail(context, tailScope) } : {}),
  });
  const tools: Tool[] = CODING_AGENT_TOOLS.map((definition) => ({
    name: definition.name,
    description: definition.description,
    parameters: Type.Unsafe(definition.inputSchema),
  }));
  const context: Context = { messages: [], tools };
  const replies: AssistantMessage[] = [];
  for (const [index, script] of CODING_AGENT_TURNS.entries()) {
    context.systemPrompt = mode === 'cachet-tail' ? CODING_AGENT_PERSONA : dynamicSystemPrompt(index);
    context.messages.push({ role: 'user', content: script.user, timestamp: 0 });
    for (let step = 0; step < 6; step++) {
      const reply = await complete(model, context, {
        apiKey: 'no-key-needed',
        maxRetries: 0,
        ...(mode === 'pi' ? {} : { onPayload: hooks.onPayload }),
      });
      if (reply.stopReason === 'error') throw new Error(reply.errorMessage ?? 'pi-ai error');
      replies.push(reply);
      if (mode !== 'pi') hooks.recordUsage(reply);
      context.messages.push(reply);
      const calls = reply.content.filter((block) => block.type === 'toolCall');
      if (calls.length === 0) break;
      for (const call of calls) {
        context.messages.push({
          role: 'toolResult',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: scriptedToolOutput(call.name, call.arguments) }],
          isError: false,
          timestamp: 0,
        });
      }
    }
  }
  return replies;
}
