import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import type { Message, ToolDefinition } from '../model/content.js';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { TOOL_GUIDANCE_MARKER, ToolGuidance, toolGuidanceMessages } from './tool-guidance.js';

const tool = (name: string, description = `Use ${name} carefully.`): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: 'object', properties: {} },
});

function makeSession(guidance: ToolGuidance, bus?: EventBus) {
  return new Session({
    id: 's',
    model: 'm',
    global: { tools: [tool('search_tools')], system: [{ label: 'persona', text: 'Static persona.' }] },
    tail: [guidance.tailProvider()],
    bus,
  });
}

const guidanceMessages = (history: readonly Message[]) =>
  history.filter((message) =>
    message.content.some((block) => block.type === 'text' && block.text.startsWith(TOOL_GUIDANCE_MARKER)),
  );

describe('toolGuidanceMessages', () => {
  it('builds one [TOOL GUIDANCE] pair covering exactly the tools given', () => {
    const [user, assistant] = toolGuidanceMessages([tool('get_page'), tool('update_page')]);
    const text = user?.content[0]?.type === 'text' ? user.content[0].text : '';
    expect(text.startsWith('[TOOL GUIDANCE] The following tools are now available: get_page, update_page\n')).toBe(true);
    expect(text).toContain('## get_page\nUse get_page carefully.');
    expect(assistant?.role).toBe('assistant');
  });
  it('is empty when no tool has guidance', () => {
    expect(toolGuidanceMessages([tool('quiet', '')])).toEqual([]);
  });
});

describe('ToolGuidance', () => {
  it('at a turn boundary, appends the pair to history at once without starting a turn', () => {
    const bus = new EventBus();
    const events: CachetEvent[] = [];
    bus.onAny((event) => events.push(event));
    const guidance = new ToolGuidance();
    const session = makeSession(guidance, bus);
    session.appendUserText('find page tools');
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'Found some.' }] });
    const result = guidance.discover(session, [tool('get_page')]);
    expect(result).toMatchObject({ appended: true });
    expect(session.tools.map((item) => item.name)).toEqual(['search_tools', 'get_page']);
    expect(guidanceMessages(session.history)).toHaveLength(1);
    expect(session.history.at(-1)?.role).toBe('assistant');
    expect(session.turn).toBe(1);
    expect(events.filter((event) => event.type === 'turn.started')).toHaveLength(1);
  });

  it('inside a tool loop, shows guidance in the tail and appends it before the next user input', () => {
    const guidance = new ToolGuidance();
    const session = makeSession(guidance);
    session.appendUserText('update the hero title');
    session.append({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'search_tools', input: { query: 'page' } }],
    });
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'get_page, update_page' }] }],
    });
    const result = guidance.discover(session, [tool('get_page'), tool('update_page')]);
    expect(result.appended).toBe(false);
    expect(guidance.pending).toEqual(['get_page', 'update_page']);
    const inLoop = assemble(session);
    expect(inLoop.tail.items.map((item) => item.kind)).toEqual(['overlay']);
    expect(inLoop.tail.items[0]?.text).toContain('get_page, update_page');
    expect(guidanceMessages(session.history)).toHaveLength(0);
    // The loop continues; the model calls a new tool, then answers.
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'update_page', input: {} }] });
    expect(guidance.flush(session)).toBe(false);
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 't2', content: [{ type: 'text', text: 'ok' }] }],
    });
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
    guidance.appendUserText(session, 'thanks, now the footer');
    const roles = session.history.slice(-4).map((message) => message.role);
    expect(roles).toEqual(['assistant', 'user', 'assistant', 'user']);
    expect(guidanceMessages(session.history)).toHaveLength(1);
    expect(guidance.pending).toEqual([]);
    expect(assemble(session).tail.items).toEqual([]);
    expect(session.turn).toBe(2);
  });

  it('never repeats guidance for tools already known or already guided', () => {
    const guidance = new ToolGuidance();
    const session = makeSession(guidance);
    session.appendUserText('go');
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    guidance.discover(session, [tool('get_page')]);
    const second = guidance.discover(session, [tool('get_page'), tool('search_tools'), tool('delete_page')]);
    expect(second.added.map((item) => item.name)).toEqual(['delete_page']);
    const pairs = guidanceMessages(session.history).map((message) =>
      message.content[0]?.type === 'text' ? message.content[0].text : '',
    );
    expect(pairs).toHaveLength(2);
    expect(pairs[1]).toContain('now available: delete_page\n');
    expect(pairs[1]).not.toContain('get_page');
    expect(pairs.join('\n')).not.toContain('search_tools');
    // Nothing new: no pair at all.
    const before = session.history.length;
    expect(guidance.discover(session, [tool('get_page')])).toEqual({ added: [], appended: false });
    expect(session.history.length).toBe(before);
  });

  it('keeps the system prompt and the earlier history untouched (append-only)', () => {
    const guidance = new ToolGuidance();
    const session = makeSession(guidance);
    session.appendUserText('go');
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    const before = assemble(session);
    guidance.discover(session, [tool('get_page')]);
    const after = assemble(session);
    expect(after.system).toEqual(before.system);
    const historyBefore = before.blocks.filter((block) => block.zone === 'history');
    const historyAfter = after.blocks.filter((block) => block.zone === 'history');
    expect(historyAfter.slice(0, historyBefore.length).map((block) => block.path)).toEqual(
      historyBefore.map((block) => block.path),
    );
    expect(historyAfter.slice(0, historyBefore.length).map((block) => block.hash)).toEqual(
      historyBefore.map((block) => block.hash),
    );
  });
});
