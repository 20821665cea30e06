import { describe, expect, it } from 'vitest';
import { requestBlockAt, requestBlockCount, requestMessageAt, requestMessageCount } from '../model/request-view.js';
import { assemble } from './assemble.js';
import { BlockIndex } from './block-index.js';
import { Session } from './session.js';

function session(): Session {
  return new Session({
    id: 'snapshot',
    model: 'claude-sonnet-4-5',
    global: { system: [{ label: 'persona', text: 'You are terse.' }] },
    clock: () => 0,
  });
}

/** The request's content as an eagerly built copy would hold it. */
function contentOf(request: ReturnType<typeof assemble>): string {
  return JSON.stringify({ messages: request.messages, blocks: request.blocks });
}

describe('assembled requests share history without copying it', () => {
  it('a request keeps its own messages and blocks while the session grows, is persisted into and is rewritten', () => {
    const live = session();
    live.appendUserText('first question');
    live.append({ role: 'assistant', content: [{ type: 'text', text: 'first answer' }] });
    const early = assemble(live, { tail: [{ kind: 'overlay', text: 'tail one', scope: 'request', position: 'end' }] });
    const earlyCopy = contentOf(
      assemble(live, { tail: [{ kind: 'overlay', text: 'tail one', scope: 'request', position: 'end' }] }),
    );
    live.appendUserText('second question');
    // Assembled (not sent: no noteRequest) before the turn's tail is persisted into its opening message.
    const preview = assemble(live);
    const previewCopy = contentOf(assemble(live));
    expect(live.persistTurnTail([{ kind: 'overlay', text: 'persisted into turn 2', position: 'end' }])).toBe(true);
    const middle = assemble(live);
    live.append({ role: 'assistant', content: [{ type: 'text', text: 'second answer' }] });
    live.rewriteHistory([{ role: 'user', content: [{ type: 'text', text: 'compacted' }] }], 'test');
    const late = assemble(live);

    expect(contentOf(early)).toBe(earlyCopy);
    expect(contentOf(preview)).toBe(previewCopy);
    expect(middle.messages).toHaveLength(3);
    expect(JSON.stringify(middle.messages[2])).toContain('persisted into turn 2');
    expect(late.messages).toHaveLength(1);
    expect(late.blocks.at(-1)?.path).toBe('messages[0].content[0]');
  });

  it('after a turn tail is persisted, requests carry the records a fresh index computes, earlier ones unchanged', () => {
    const live = session();
    const sent: Array<{ request: ReturnType<typeof assemble>; blocks: string }> = [];
    // Read only at the end: each request must still hold what a fresh index computed when it was made.
    const send = () => sent.push({ request: assemble(live), blocks: JSON.stringify(new BlockIndex().persistedBlocks(live)) });
    for (let turn = 1; turn <= 4; turn++) {
      live.appendUserText(`question ${turn}`);
      // Turns 2 and 4 are previewed (assembled, not sent) before the tail goes into their opening message.
      if (turn % 2 === 0) send();
      // From turn 3 the item goes before the user's text, so the opening message's first record changes too.
      const position = turn > 2 ? 'before-user-text' : 'end';
      expect(live.persistTurnTail([{ kind: 'overlay', text: `context ${turn}`, position }])).toBe(true);
      send();
      live.append({ role: 'assistant', content: [{ type: 'text', text: `answer ${turn}` }] });
      send();
    }
    expect(sent).toHaveLength(10);
    for (const { request, blocks } of sent) expect(JSON.stringify(request.blocks)).toBe(blocks);
  });

  it('reads entries without copying, and follows an assignment or a change to the copied arrays', () => {
    const live = session();
    live.appendUserText('question');
    const request = assemble(live, { tail: [{ kind: 'overlay', text: 'tail', scope: 'request', position: 'end' }] });
    expect(requestBlockCount(request)).toBe(3);
    expect(requestBlockAt(request, 2)?.zone).toBe('tail');
    expect(requestBlockAt(request, 3)).toBeUndefined();
    expect(requestMessageCount(request)).toBe(1);
    expect(requestMessageAt(request, 0)?.role).toBe('user');
    expect(requestMessageAt(request, 1)).toBeUndefined();

    request.blocks.pop();
    expect(requestBlockCount(request)).toBe(2);
    request.messages = [];
    expect(requestMessageCount(request)).toBe(0);
    expect(requestMessageAt(request, 0)).toBeUndefined();
  });

  it('keeps the key order of an eagerly built request (JSON output unchanged)', () => {
    const live = session();
    live.appendUserText('question');
    const request = assemble(live);
    expect(Object.keys(request)).toEqual([
      'sessionId',
      'model',
      'tools',
      'system',
      'messages',
      'tail',
      'params',
      'layout',
      'blocks',
    ]);
    expect({ ...request }.messages).toEqual(request.messages);
  });
});
