import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import type { Message, ToolResultBlock } from '../model/content.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { MemoryOffloadStore } from './offload-store.js';
import { createCompactionPipeline } from './pipeline.js';
import { measureRequest } from './request-tokens.js';
import { COMPACTION_TOOL_DEFINITIONS } from './tools.js';

/** A session with Cachet's tools and a read_file tool, a recording bus and a settable clock (tests only). */
export function makeTestSession(options: { model?: string; staticPair?: boolean } = {}) {
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  let now = 1_767_225_600_000;
  const session = new Session({
    id: 'test-session',
    model: options.model ?? 'claude-sonnet-4-5',
    global: {
      tools: [
        ...COMPACTION_TOOL_DEFINITIONS,
        {
          name: 'read_file',
          description: 'Read a file',
          inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ],
      system: [{ label: 'persona', text: 'You are a careful coding agent.' }],
    },
    sessionStatic: options.staticPair
      ? {
          messages: [
            { role: 'user', content: [{ type: 'text', text: '[CONTEXT] working memory: none yet' }] },
            { role: 'assistant', content: [{ type: 'text', text: 'Understood.' }] },
          ],
        }
      : undefined,
    bus,
    clock: () => now,
  });
  return {
    session,
    bus,
    events,
    setNow: (value: number) => {
      now = value;
    },
    get now() {
      return now;
    },
  };
}

/** `lines` lines of recognisable file content. */
export function fileText(lines: number, tag = 'a'): string {
  return Array.from(
    { length: lines },
    (_, index) => `const ${tag}${index} = compute(${index}); // line ${index} of ${tag}.ts`,
  ).join('\n');
}

export function toolCall(id: string, path: string, name = 'read_file'): Message {
  return { role: 'assistant', content: [{ type: 'tool_use', id, name, input: { path } }] };
}

export function toolResult(id: string, text: string, isError = false): ToolResultBlock {
  return { type: 'tool_result', toolUseId: id, content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) };
}

/** `turns` turns of: instruction, read_file call, a `lines`-line result, a short answer (numbered from `from`). */
export function fillReadTurns(session: Session, turns: number, lines: number, from = 0): void {
  for (let turn = from; turn < from + turns; turn++) {
    session.appendUserText(`Instruction ${turn}: look at file_${turn}.ts`);
    session.append(toolCall(`t${turn}`, `file_${turn}.ts`));
    session.append({ role: 'user', content: [toolResult(`t${turn}`, fileText(lines, `f${turn}_`))] });
    session.append({ role: 'assistant', content: [{ type: 'text', text: `Read file_${turn}.ts.` }] });
  }
}

/**
 * A pipeline whose window puts `session`'s next request at `utilisation`, with in-memory stores, two requests
 * expected to remain and an 800-token light truncation (the idle-planning set-up).
 */
export function idlePlanningPipeline(session: Session, utilisation: number, counter: TokenCounter) {
  const windowTokens = Math.round(measureRequest(assemble(session), counter).total / utilisation);
  return createCompactionPipeline({
    windowTokens,
    counter,
    checkpointStore: new MemoryCheckpointStore(),
    offloadStore: new MemoryOffloadStore(),
    expectedRemainingRequests: 2,
    lightTruncateTokens: 800,
  });
}
