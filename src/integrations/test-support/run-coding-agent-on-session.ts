import { createAnthropicCacheModel } from '../../cache/models/anthropic-cache-model.js';
import type { JsonObject } from '../../model/json.js';
import { anthropicAdapter } from '../../providers/anthropic/index.js';
import { prepareRequest } from '../../runtime/prepare-request.js';
import { Session } from '../../session/session.js';
import {
  CODING_AGENT_MODEL,
  CODING_AGENT_PERSONA,
  CODING_AGENT_TOOLS,
  CODING_AGENT_TURNS,
  clockText,
  memoryRecallText,
  SCRIPT_START_MS,
  type ScriptedUserTurn,
  STEP_GAP_MS,
  scriptedToolOutput,
  TURN_GAP_MS,
} from './coding-agent-script.js';
import { type RunFigures, runFigures } from './coding-agent-server.js';

/** A tool as an Anthropic request body carries it (what a library actually sent). */
export interface WireTool {
  name: string;
  description?: string;
  input_schema: JsonObject;
}

/**
 * The scripted coding agent assembled by Cachet's own `Session` (the yardstick the drop-ins are
 * held to): persona and tools in the global zone, clock and memory recall as `auto`-scoped tail
 * items, every body judged by the same Anthropic cache model at the script's request times.
 * `tools`: the tool JSON a library sent (its bodies' `tools`), so `Session` is measured on the
 * same bytes — LangChain's zod tools, say, carry `$schema` and `additionalProperties` [the
 * script's own tool definitions].
 */
export function runCodingAgentOnSession(
  turns: readonly ScriptedUserTurn[] = CODING_AGENT_TURNS,
  tools: readonly WireTool[] | null = null,
): RunFigures {
  let now = SCRIPT_START_MS;
  const session = new Session({
    id: 'coding-agent',
    model: CODING_AGENT_MODEL,
    global: {
      tools: tools
        ? tools.map((tool) => ({ name: tool.name, description: tool.description ?? '', inputSchema: tool.input_schema }))
        : CODING_AGENT_TOOLS.map((tool) => ({ ...tool, inputSchema: tool.inputSchema as unknown as JsonObject })),
      system: [{ label: 'persona', text: CODING_AGENT_PERSONA }],
    },
    clock: () => now,
  });
  const model = createAnthropicCacheModel();
  const verdicts = [];
  const bodies: unknown[] = [];
  for (const [turnIndex, turn] of turns.entries()) {
    session.appendUserText(turn.user);
    for (const [step, reply] of turn.replies.entries()) {
      now = SCRIPT_START_MS + turnIndex * TURN_GAP_MS + step * STEP_GAP_MS;
      const prepared = prepareRequest(session, anthropicAdapter, {
        turn: turnIndex + 1,
        step,
        tail: [
          { kind: 'time', text: clockText(turnIndex), position: 'end' },
          { kind: 'memory-recall', text: memoryRecallText(turnIndex), position: 'end' },
        ],
      });
      bodies.push(prepared.body);
      verdicts.push(model.judge(prepared.body, { at: now }));
      const calls = 'toolCalls' in reply ? reply.toolCalls : [];
      session.append({
        role: 'assistant',
        content: calls.length
          ? calls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: call.input as JsonObject }))
          : [{ type: 'text' as const, text: 'text' in reply ? reply.text : '' }],
      });
      if (calls.length === 0) continue;
      session.append({
        role: 'user',
        content: calls.map((call) => ({
          type: 'tool_result' as const,
          toolUseId: call.id,
          content: [{ type: 'text' as const, text: scriptedToolOutput(call.name, call.input) }],
        })),
      });
    }
  }
  return runFigures(verdicts, bodies);
}
