import { describe, expect, it } from 'vitest';
import { ValidationError } from '../model/errors.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { CONTEXT_ACKNOWLEDGEMENT, contextPairMessages, renderWorkingMemory } from './working-memory.js';

describe('contextPairMessages', () => {
  it('renders sections in order as a [CONTEXT] user message and a fixed acknowledgement', () => {
    const messages = contextPairMessages({
      sections: [
        { heading: 'RECENT ENTITIES', items: ['page "Home" (page-123)', ' ', 'page "About" (page-9)'] },
        { heading: 'EMPTY', items: [] },
        { heading: 'AVAILABLE TOOLS', items: ['getPage, updatePage'] },
      ],
    });
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: '[CONTEXT] Continuing our session. Here is the working memory restored at session start:\n\n[RECENT ENTITIES]\n- page "Home" (page-123)\n- page "About" (page-9)\n\n[AVAILABLE TOOLS]\n- getPage, updatePage\n\nKeep this context in mind as we continue.',
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: CONTEXT_ACKNOWLEDGEMENT }] },
    ]);
  });

  it('gives the same bytes for the same memory, whatever the key order it arrives in', () => {
    const memory = { sections: [{ heading: 'NOTES', items: ['a', 'b'] }] };
    const reordered = JSON.parse('{"sections":[{"items":["a","b"],"heading":"NOTES"}]}') as typeof memory;
    const bytes = JSON.stringify(contextPairMessages(memory));
    expect(JSON.stringify(contextPairMessages(reordered))).toBe(bytes);
    expect(bytes).toContain('[NOTES]\\n- a\\n- b\\n\\n');
    // Item order is content: swapping items changes the bytes.
    expect(JSON.stringify(contextPairMessages({ sections: [{ heading: 'NOTES', items: ['b', 'a'] }] }))).not.toBe(bytes);
  });

  it('produces nothing for empty memory', () => {
    for (const memory of [null, undefined, '', '  \n', { sections: [] }, { sections: [{ heading: 'X', items: [] }] }]) {
      expect(contextPairMessages(memory)).toEqual([]);
    }
  });

  it('rejects memory of the wrong shape with a path', () => {
    expect(() => renderWorkingMemory({ sections: [{ heading: 3 } as never] })).toThrow(ValidationError);
    expect(() => renderWorkingMemory({ sections: [{ heading: 3 } as never] })).toThrow(/workingMemory\.sections\[0\]/);
  });

  it('is a valid session static zone: the first history message may follow it', () => {
    const session = new Session({
      id: 's',
      model: 'm',
      global: { system: [{ label: 'persona', text: 'Static persona.' }] },
      sessionStatic: { messages: contextPairMessages('Open file: src/a.ts') },
    });
    session.appendUserText('continue');
    const request = assemble(session);
    expect(request.layout).toMatchObject({ sessionMessageCount: 2, historyMessageCount: 1 });
    expect(request.system.map((segment) => segment.text)).toEqual(['Static persona.']);
  });
});
