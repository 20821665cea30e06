import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import type { Message, ToolResultBlock } from '../model/content.js';
import { Session } from '../session/session.js';
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
