import type { SessionLabels } from '../events/catalog.js';
import type { EventBus } from '../events/event-bus.js';
import { isDeepFrozen } from '../model/freeze.js';
import { chainHash, EMPTY_PREFIX_HASH, hashOf } from '../model/hash.js';
import type { BlockRecord, CanonicalRequest, SystemSegment } from '../model/request.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import { BlockDeltaTracker } from '../runtime/block-delta.js';
import { sharedCounter } from '../runtime/prepare-request.js';
import { assemble } from '../session/assemble.js';
import type { DiscoverableTool, Workload, WorkloadStep, WorkloadTurn } from '../workloads/workload.js';
import { placeChatMarkers } from './chat-markers.js';
import { harnessRequest, harnessSession, harnessStaticText } from './harness-session.js';
import { adapterFor } from './provider-adapters.js';
import type { BuiltRequest, StrategyDriver } from './strategy.js';
import {
  beginWorkloadTurn,
  skillBlockText,
  timeText,
  toolGuidanceText,
  toolResultMessage,
  userMessage,
} from './workload-content.js';

/**
 * The two harness designs Cachet is compared with. Both keep the same history as Cachet and
 * differ in where volatile content goes and where cache markers sit:
 * - `naive` rebuilds one system prompt for every request with the working memory, discovered
 *   tools' guidance, current time, memory recall, working context and matched skills inside it,
 *   and marks only that system prompt;
 * - `markers` keeps a static system prompt, appends the volatile text as a second system block
 *   after it, and marks the static block and the last two messages.
 * On providers that cache automatically the designs differ by layout alone.
 */
export function harnessStrategy(
  design: 'naive' | 'markers',
  workload: Workload,
  context: { provider: ProviderId; model: string; sessionId: string; bus?: EventBus; labels?: SessionLabels },
): StrategyDriver {
  let now = workload.turns[0]?.at ?? 0;
  const session = harnessSession(design, workload, context, () => now);
  const entry = providerEntry(context.provider);
  const adapter = adapterFor(context.provider);
  const requestContext = {
    provider: context.provider,
    counter: sharedCounter(context.provider, context.model),
    blockDeltas: new BlockDeltaTracker(),
  };
  const discovered: DiscoverableTool[] = [];
  const staticText = harnessStaticText(workload);

  function volatileText(turn: WorkloadTurn, at: number): string {
    const parts: string[] = [];
    if (workload.workingMemory) parts.push(`<working-memory>\n${workload.workingMemory.trimEnd()}\n</working-memory>`);
    const guidance = toolGuidanceText(discovered);
    if (guidance) parts.push(`<tool-usage-instructions>\n${guidance}\n</tool-usage-instructions>`);
    if (turn.tail.time) parts.push(timeText(at));
    if (turn.tail.memoryRecall) parts.push(`<recalled-context>\n${turn.tail.memoryRecall.trimEnd()}\n</recalled-context>`);
    if (turn.tail.workingContext) parts.push(turn.tail.workingContext.trimEnd());
    for (const name of turn.tail.skills) parts.push(skillBlockText(workload, name));
    return parts.join('\n\n');
  }

  function canonicalFor(turn: WorkloadTurn, step: WorkloadStep): CanonicalRequest {
    const base = assemble(session, { now: step.at });
    const volatile = volatileText(turn, step.at);
    const system: SystemSegment[] =
      design === 'naive'
        ? [{ zone: 'global', label: 'system-prompt', text: volatile ? `${staticText}\n\n${volatile}` : staticText }]
        : [
            { zone: 'global', label: 'system-prompt', text: staticText },
            ...(volatile ? [{ zone: 'session' as const, label: 'volatile', text: volatile }] : []),
          ];
    return withBlocks({ ...base, system, tail: { items: [], inToolLoop: base.tail.inToolLoop } });
  }

  function options(request: CanonicalRequest): Record<string, unknown> {
    switch (entry.callerMarkers) {
      case 'anthropic-paths': {
        const markers = [{ path: 'system[0]' }, ...lastMessagePaths(request, design === 'markers' ? 2 : 0)];
        return { breakpoints: 'none', markers, padding: 'never' };
      }
      case 'openai-breakpoints':
        return { breakpoints: 'off' };
      case 'chat-cache-control':
      case 'none':
        return {};
      default:
        return entry.callerMarkers satisfies never;
    }
  }

  return {
    name: design,
    session,
    beginTurn(turn: WorkloadTurn) {
      now = turn.at;
      discovered.push(...beginWorkloadTurn(session, workload, turn, context.provider));
      session.append(userMessage(turn));
    },
    request(turn: WorkloadTurn, step: WorkloadStep): BuiltRequest {
      now = step.at;
      const canonical = canonicalFor(turn, step);
      const converted = adapter.convertRequest(canonical, options(canonical));
      const body =
        entry.callerMarkers === 'chat-cache-control'
          ? placeChatMarkers(converted.body, { systemParts: 1, lastMessages: design === 'markers' ? 2 : 0 })
          : converted.body;
      return harnessRequest(session, requestContext, { turn, step }, canonical, converted, body);
    },
    endStep(_turn: WorkloadTurn, step: WorkloadStep) {
      session.append({ role: 'assistant', content: step.reply });
      if (step.discoveredTools.length > 0) {
        session.discoverTools(step.discoveredTools.map((tool) => tool.tool));
        discovered.push(...step.discoveredTools);
      }
      const results = toolResultMessage(step, null);
      if (results) session.append(results);
    },
  };
}

/** Paths of the last content block of the last `count` messages that can carry a marker. */
function lastMessagePaths(request: CanonicalRequest, count: number): Array<{ path: string }> {
  const paths: Array<{ path: string }> = [];
  for (let index = request.messages.length - 1; index >= 0 && paths.length < count; index--) {
    const content = request.messages[index]?.content ?? [];
    const blockIndex = content.findLastIndex((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking');
    if (blockIndex >= 0) paths.unshift({ path: `messages[${index}].content[${blockIndex}]` });
  }
  return paths;
}

/** Recompute block records after replacing the system prompt (same hashing as the session's index). */
/** A history block's hash under its message's role, once per block and role (blocks are frozen). */
const roleBlockHashes = new Map<string, WeakMap<object, string>>();
function roleBlockHash(role: string, block: object): string {
  let byBlock = roleBlockHashes.get(role);
  if (!byBlock) {
    byBlock = new WeakMap();
    roleBlockHashes.set(role, byBlock);
  }
  let hash = byBlock.get(block);
  if (hash === undefined) {
    hash = chainHash(role, hashOf(block as Parameters<typeof hashOf>[0]));
    if (isDeepFrozen(block)) byBlock.set(block, hash);
  }
  return hash;
}

export function withBlocks(request: CanonicalRequest): CanonicalRequest {
  const blocks: BlockRecord[] = [];
  let prefix = EMPTY_PREFIX_HASH;
  const push = (record: Omit<BlockRecord, 'prefixHash'>) => {
    prefix = chainHash(prefix, record.hash);
    blocks.push({ ...record, prefixHash: prefix });
  };
  request.tools.forEach((tool, index) => {
    push({ zone: index < request.layout.globalToolCount ? 'global' : 'session', path: `tools[${index}]`, hash: hashOf(tool) });
  });
  request.system.forEach((segment, index) => {
    push({ zone: segment.zone, path: `system[${index}]`, hash: hashOf(segment) });
  });
  request.messages.forEach((message, messageIndex) => {
    message.content.forEach((block, blockIndex) => {
      push({
        zone: 'history',
        path: `messages[${messageIndex}].content[${blockIndex}]`,
        hash: roleBlockHash(message.role, block),
      });
    });
  });
  return { ...request, blocks };
}
