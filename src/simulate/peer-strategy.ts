import type { SessionLabels } from '../events/catalog.js';
import type { EventBus } from '../events/event-bus.js';
import type { CanonicalRequest, SystemSegment } from '../model/request.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import { BlockDeltaTracker } from '../runtime/block-delta.js';
import { sharedCounter } from '../runtime/prepare-request.js';
import { assemble } from '../session/assemble.js';
import type { Workload, WorkloadStep, WorkloadTurn } from '../workloads/workload.js';
import { type AnthropicMarkerPlacement, placeAnthropicMarkers } from './anthropic-markers.js';
import { placeChatMarkers } from './chat-markers.js';
import { harnessRequest, harnessSession, harnessStaticText } from './harness-session.js';
import { withBlocks } from './harness-strategy.js';
import { adapterFor } from './provider-adapters.js';
import type { BuiltRequest, StrategyDriver } from './strategy.js';
import {
  beginWorkloadTurn,
  skillBlockText,
  timeText,
  toolGuidanceText,
  toolResultMessage,
  userMessageWithGuidance,
} from './workload-content.js';

/** The designs users get today from the main TypeScript libraries (docs/cli.md names the versions). */
export type PeerDesign = 'pi' | 'ai-sdk' | 'langchain';

/** `@ai-sdk/anthropic` keeps at most four `cache_control` markers a request. */
const AI_SDK_MARKER_LIMIT = 4;
/** `anthropicPromptCachingMiddleware` default `minMessagesToCache` (system prompt counted). */
const LANGCHAIN_MIN_MESSAGES = 3;

/**
 * A peer library's design, on the same history as every other strategy:
 * - `pi` (pi-ai 0.73.1, default short retention): one system block, the turn's volatile
 *   context appended to the user's message (so it stays in history), markers on the last tool,
 *   the system block and the last block of the last message when it is a user message (text,
 *   image or tool_result); user messages of one text go out as plain strings when unmarked.
 * - `ai-sdk` (AI SDK 7.0 + `@ai-sdk/anthropic` 4.0, cookbook "dynamic prompt caching"): a
 *   marked static system message, the volatile context in a second system message, and
 *   `prepareStep` marking the last message; step messages carry the earlier steps' markers, so
 *   they accumulate within a turn and past four the provider drops the newest.
 * - `langchain` (langchain 1.5 `createAgent` + `anthropicPromptCachingMiddleware()` defaults, a
 *   dynamic system prompt): time and memory appended to the one system prompt every request;
 *   top-level automatic caching once system + messages reach three.
 * On providers that cache automatically the designs differ by layout alone; on OpenRouter's
 * Anthropic routes the nearest chat markers are placed.
 */
export function peerStrategy(
  design: PeerDesign,
  workload: Workload,
  context: { provider: ProviderId; model: string; sessionId: string; bus?: EventBus; labels?: SessionLabels },
): StrategyDriver {
  let now = workload.turns[0]?.at ?? 0;
  const session = harnessSession(design, workload, context, () => now);
  const adapter = adapterFor(context.provider);
  const entry = providerEntry(context.provider);
  const requestContext = {
    provider: context.provider,
    counter: sharedCounter(context.provider, context.model),
    blockDeltas: new BlockDeltaTracker(),
  };
  const staticText = harnessStaticText(workload, [
    workload.workingMemory ? `<working-memory>\n${workload.workingMemory.trimEnd()}\n</working-memory>` : null,
  ]);
  // ai-sdk: the wire indices of the messages `prepareStep` marked in this turn, oldest first.
  let turnMarks: number[] = [];

  function volatileText(turn: WorkloadTurn, at: number): string {
    const parts: string[] = [];
    if (turn.tail.time) parts.push(timeText(at));
    if (turn.tail.memoryRecall) parts.push(`<recalled-context>\n${turn.tail.memoryRecall.trimEnd()}\n</recalled-context>`);
    if (turn.tail.workingContext) parts.push(turn.tail.workingContext.trimEnd());
    for (const name of turn.tail.skills) parts.push(skillBlockText(workload, name));
    return parts.join('\n\n');
  }

  function canonicalFor(turn: WorkloadTurn, step: WorkloadStep): CanonicalRequest {
    const base = assemble(session, { now: step.at });
    const volatile = design === 'pi' ? '' : volatileText(turn, step.at);
    const system: SystemSegment[] =
      design === 'langchain'
        ? [{ zone: 'global', label: 'system-prompt', text: volatile ? `${staticText}\n\n${volatile}` : staticText }]
        : [
            { zone: 'global', label: 'system-prompt', text: staticText },
            ...(volatile ? [{ zone: 'session' as const, label: 'volatile', text: volatile }] : []),
          ];
    return withBlocks({ ...base, system, tail: { items: [], inToolLoop: base.tail.inToolLoop } });
  }

  function anthropicPlacement(request: CanonicalRequest): AnthropicMarkerPlacement {
    const last = request.messages.length - 1;
    switch (design) {
      case 'pi':
        return {
          lastTool: true,
          systemBlocks: 1,
          messages: request.messages[last]?.role === 'user' ? [last] : [],
          messageBlockTypes: ['text', 'image', 'tool_result'],
          plainStringUserText: true,
        };
      case 'ai-sdk':
        if (turnMarks.at(-1) !== last) turnMarks.push(last);
        return { systemBlocks: 1, messages: turnMarks, limit: AI_SDK_MARKER_LIMIT };
      case 'langchain':
        return { automatic: request.messages.length + 1 >= LANGCHAIN_MIN_MESSAGES };
    }
  }

  function bodyFor(request: CanonicalRequest, step: WorkloadStep) {
    switch (entry.callerMarkers) {
      case 'anthropic-paths': {
        const converted = adapter.convertRequest(request, { breakpoints: 'none', padding: 'never' });
        return { ...converted, body: placeAnthropicMarkers(converted.body, anthropicPlacement(request)) };
      }
      case 'chat-cache-control': {
        const converted = adapter.convertRequest(request, {});
        // ai-sdk's accumulated markers sit on each step's last message: the nearest chat placement marks that many last messages.
        const lastMessages =
          design === 'ai-sdk'
            ? Math.min(AI_SDK_MARKER_LIMIT - 1, step.step + 1)
            : design === 'pi' || request.messages.length + 1 >= LANGCHAIN_MIN_MESSAGES
              ? 1
              : 0;
        return {
          ...converted,
          body: placeChatMarkers(converted.body, { systemParts: design === 'langchain' ? 0 : 1, lastMessages }),
        };
      }
      case 'openai-breakpoints':
        return adapter.convertRequest(request, { breakpoints: 'off' });
      case 'none':
        return adapter.convertRequest(request, {});
      default:
        return entry.callerMarkers satisfies never;
    }
  }

  return {
    name: design,
    session,
    beginTurn(turn: WorkloadTurn) {
      now = turn.at;
      turnMarks = [];
      beginWorkloadTurn(session, workload, turn, context.provider);
      const volatile = design === 'pi' ? volatileText(turn, turn.at) : '';
      const message = userMessageWithGuidance(turn);
      const last = message.content.at(-1);
      if (volatile && last?.type === 'text' && turn.user.trim().length > 0) last.text = `${last.text}\n\n${volatile}`;
      else if (volatile) message.content.push({ type: 'text', text: volatile });
      session.append(message);
    },
    request(turn: WorkloadTurn, step: WorkloadStep): BuiltRequest {
      now = step.at;
      const canonical = canonicalFor(turn, step);
      return harnessRequest(session, requestContext, { turn, step }, canonical, bodyFor(canonical, step));
    },
    endStep(_turn: WorkloadTurn, step: WorkloadStep) {
      session.append({ role: 'assistant', content: step.reply });
      if (step.discoveredTools.length > 0) session.discoverTools(step.discoveredTools.map((tool) => tool.tool));
      const results = toolResultMessage(step, toolGuidanceText(step.discoveredTools));
      if (results) session.append(results);
    },
  };
}
