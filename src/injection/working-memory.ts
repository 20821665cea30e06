import type { Message } from '../model/content.js';
import { ValidationError } from '../model/errors.js';

/** One titled group of working-memory lines, e.g. `{ heading: 'RECENT ENTITIES', items: [...] }`. */
export interface WorkingMemorySection {
  heading: string;
  items: string[];
}

/** Working memory as plain text, or as sections rendered in the order given. */
export type WorkingMemory = string | { sections: WorkingMemorySection[] };

export const CONTEXT_MARKER = '[CONTEXT]';
export const CONTEXT_ACKNOWLEDGEMENT = 'I have the restored context and will keep it in mind as we continue.';

/**
 * Render working memory as text: sections as `[HEADING]` followed by `- item` lines, empty
 * sections skipped. Returns '' for empty memory. Pure: same memory, same bytes.
 */
export function renderWorkingMemory(memory: WorkingMemory | null | undefined): string {
  if (memory === null || memory === undefined) return '';
  if (typeof memory === 'string') return memory.trim();
  if (typeof memory !== 'object' || !Array.isArray(memory.sections)) {
    throw new ValidationError('workingMemory', 'a string or { sections: [{ heading, items }] }');
  }
  return memory.sections
    .map((section, index) => {
      if (typeof section?.heading !== 'string' || !Array.isArray(section.items)) {
        throw new ValidationError(`workingMemory.sections[${index}]`, '{ heading: string, items: string[] }');
      }
      const items = section.items.map((item) => String(item).trim()).filter((item) => item.length > 0);
      return items.length > 0 ? `[${section.heading}]\n${items.map((item) => `- ${item}`).join('\n')}` : '';
    })
    .filter((block) => block.length > 0)
    .join('\n\n');
}

/**
 * The `[CONTEXT]` user/assistant pair that restores working memory at session start, for the
 * session static zone (`sessionStatic.messages`). Empty memory gives no messages at all, so a
 * session without memory has exactly the bytes it would have had without this feature.
 * Compaction calls it again to restore memory after rewriting history.
 *
 * @example
 * const session = new Session({
 *   ...options,
 *   sessionStatic: { messages: contextPairMessages({ sections: [{ heading: 'OPEN FILES', items: ['src/a.ts'] }] }) },
 * });
 */
export function contextPairMessages(memory: WorkingMemory | null | undefined): Message[] {
  const body = renderWorkingMemory(memory);
  if (body.length === 0) return [];
  return [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: `${CONTEXT_MARKER} Continuing our session. Here is the working memory restored at session start:\n\n${body}\n\nKeep this context in mind as we continue.`,
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: CONTEXT_ACKNOWLEDGEMENT }] },
  ];
}
