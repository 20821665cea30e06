import type { EventBus } from '../events/event-bus.js';
import type { Message, ToolResultBlock } from '../model/content.js';
import type { CanonicalRequest } from '../model/request.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { counterForModel } from '../tokens/counter-for-model.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { restoreIdsIn } from './markers.js';
import type { CompactionDecision, CompactionPipeline } from './pipeline.js';
import { measureRequest } from './request-tokens.js';
import { LATEST_RESTORE_ID, type SyntheticSession } from './synthetic-session.js';
import { COMPACTION_TOOL_DEFINITIONS } from './tools.js';

export interface SyntheticRequest {
  index: number;
  at: number;
  turn: number;
  request: CanonicalRequest;
  tokens: number;
  decision: CompactionDecision | null;
}

export interface RunSyntheticSessionOptions {
  /** Without a pipeline the session runs uncompacted (its requests may exceed any window). */
  pipeline?: CompactionPipeline;
  counter?: TokenCounter;
  bus?: EventBus;
  model?: string;
  /** Forwarded to `beforeRequest` for every request (e.g. `cacheHot: false` for a cache-blind baseline). */
  cacheHot?: boolean;
  onRequest?: (request: SyntheticRequest, session: Session) => void | Promise<void>;
  onSessionCreated?: (session: Session) => void;
}

/**
 * Drive a generated session the way an agent loop would: ingest the user input, run
 * `beforeRequest`, assemble the request, append the scripted reply, run Cachet's own tools
 * (`session_note`, `context_restore`) and ingest the tool results.
 */
export async function runSyntheticSession(
  workload: SyntheticSession,
  options: RunSyntheticSessionOptions = {},
): Promise<{ session: Session; requests: number }> {
  const counter = options.counter ?? counterForModel('anthropic', options.model ?? 'claude-sonnet-4-5');
  let clockNow = workload.turns[0]?.at ?? 0;
  const session = new Session({
    id: 'synthetic',
    model: options.model ?? 'claude-sonnet-4-5',
    global: {
      tools: [...COMPACTION_TOOL_DEFINITIONS, ...workload.tools],
      system: [{ label: 'persona', text: 'You are a careful coding agent working in a TypeScript repository.' }],
    },
    sessionStatic: { system: [{ label: 'project', text: 'Project: cachet-demo. Session synthetic.' }] },
    bus: options.bus,
    clock: () => clockNow,
  });
  options.onSessionCreated?.(session);
  const pipeline = options.pipeline;
  const append = async (message: Message) => {
    if (pipeline) await pipeline.ingest(session, message);
    else session.append(message);
  };
  let latestRestoreId: string | null = null;
  let index = 0;
  for (const [turnIndex, turn] of workload.turns.entries()) {
    clockNow = turn.at;
    await append({ role: 'user', content: [{ type: 'text', text: turn.userText }] });
    for (const step of turn.steps) {
      clockNow = step.at;
      const decision = pipeline
        ? await pipeline.beforeRequest(session, {
            now: step.at,
            remainingRequests: workload.requestCount - index,
            ...(options.cacheHot === undefined ? {} : { cacheHot: options.cacheHot }),
          })
        : null;
      const request = assemble(session, { now: step.at });
      for (const message of request.messages) {
        for (const block of message.content) {
          if (block.type !== 'tool_result') continue;
          for (const inner of block.content)
            if (inner.type === 'text') latestRestoreId = restoreIdsIn(inner.text).at(-1) ?? latestRestoreId;
        }
      }
      await options.onRequest?.(
        { index, at: step.at, turn: turnIndex + 1, request, tokens: measureRequest(request, counter).total, decision },
        session,
      );
      index += 1;
      const assistant: Message = {
        role: 'assistant',
        content: step.assistant.content.map((block) =>
          block.type === 'tool_use' && block.input.id === LATEST_RESTORE_ID
            ? { ...block, input: { id: latestRestoreId ?? 'ctx_0000000000000000' } }
            : block,
        ),
      };
      session.append(assistant);
      const results: ToolResultBlock[] = [];
      for (const block of assistant.content) {
        if (block.type !== 'tool_use') continue;
        const own = pipeline ? await pipeline.runTool(session, block) : null;
        const scripted = step.results[block.id];
        if (own) results.push(own);
        else if (scripted) results.push(scripted);
        else results.push({ type: 'tool_result', toolUseId: block.id, content: [{ type: 'text', text: `ok (${block.name})` }] });
      }
      if (results.length > 0) await append({ role: 'user', content: results });
    }
  }
  return { session, requests: index };
}
