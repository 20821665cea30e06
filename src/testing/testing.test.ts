import { describe, expect, it } from 'vitest';
import { assemble } from '../session/assemble.js';
import { Session } from '../session/session.js';
import { DEMO_NOW, demoSession } from '../session/test-support/demo-session.js';
import { assertStablePrefix, PrefixInstabilityError } from './assert-stable-prefix.js';
import { longestCommonPrefix } from './longest-common-prefix.js';
import { formatZoneHashReport, zoneHashReport } from './zone-hash-report.js';

function instability(action: () => unknown): PrefixInstabilityError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(PrefixInstabilityError);
    return error as PrefixInstabilityError;
  }
  throw new Error('expected a PrefixInstabilityError');
}

/** A session whose persona segment is rebuilt from a value, to simulate a harness that edits the system prompt. */
function sessionWithPersona(persona: string): Session {
  const session = new Session({
    id: 's',
    model: 'claude-sonnet-4-5',
    global: {
      tools: [{ name: 'grep', description: 'Search', inputSchema: { type: 'object' } }],
      system: [{ label: 'persona', text: persona }],
    },
  });
  session.appendUserText('hello');
  return session;
}

describe('longestCommonPrefix', () => {
  it('counts whole common blocks and bytes, and names both sides of the divergence', () => {
    const a = assemble(sessionWithPersona('You are an agent. Today is Monday.'));
    const b = assemble(sessionWithPersona('You are an agent. Today is Tuesday.'));
    const common = longestCommonPrefix(a, b);
    expect(common.blocks).toBe(1);
    expect(common.zone).toBe('global');
    expect(common.divergedIn).toBe('global');
    expect(common.divergence?.a).toMatchObject({ zone: 'global', path: 'system[0]' });
    expect(common.divergence?.a?.excerpt).toContain('Monday');
    expect(common.divergence?.b?.excerpt).toContain('Tuesday');
    // The tool block plus the shared start of the segment up to "Today is ".
    const toolBytes = Buffer.byteLength(JSON.stringify({ description: 'Search', inputSchema: { type: 'object' }, name: 'grep' }));
    const segmentStart = Buffer.byteLength('{"label":"persona","text":"You are an agent. Today is ');
    expect(common.bytes).toBe(toolBytes + segmentStart);
  });

  it('reports identical requests as fully shared', () => {
    const session = demoSession();
    const a = assemble(session, { now: DEMO_NOW });
    const b = assemble(session, { now: DEMO_NOW });
    const common = longestCommonPrefix(a, b);
    expect(common.blocks).toBe(a.blocks.length);
    expect(common.divergence).toBeNull();
    expect(common.zone).toBe('tail');
  });

  it('shares nothing across models', () => {
    const session = demoSession();
    const a = assemble(session, { now: DEMO_NOW });
    session.setModel('claude-opus-4-1');
    const common = longestCommonPrefix(a, assemble(session, { now: DEMO_NOW }));
    expect(common.blocks).toBe(0);
    expect(common.bytes).toBe(0);
  });

  it('counts bytes in UTF-8', () => {
    const a = assemble(sessionWithPersona('Grüße — été'));
    const b = assemble(sessionWithPersona('Grüße — étE'));
    const common = longestCommonPrefix(a, b);
    const toolBytes = Buffer.byteLength(JSON.stringify({ description: 'Search', inputSchema: { type: 'object' }, name: 'grep' }));
    expect(common.bytes).toBe(toolBytes + Buffer.byteLength('{"label":"persona","text":"Grüße — ét'));
  });
});

describe('assertStablePrefix', () => {
  it('passes for an append-only session across turns and tool steps', () => {
    const session = demoSession();
    const requests = [assemble(session, { now: DEMO_NOW })];
    session.appendUserText('next');
    requests.push(assemble(session, { now: DEMO_NOW + 1 }));
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'grep', input: { q: 'a' } }] });
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'x', content: [{ type: 'text', text: 'hit' }] }],
    });
    requests.push(assemble(session, { now: DEMO_NOW + 2 }));
    expect(() => assertStablePrefix(requests)).not.toThrow();
  });

  it('names the zone, block and both sides when a static zone changes', () => {
    const error = instability(() =>
      assertStablePrefix([
        assemble(sessionWithPersona('Time: 10:00. Be brief.')),
        assemble(sessionWithPersona('Time: 10:05. Be brief.')),
      ]),
    );
    expect(error.zone).toBe('global');
    expect(error.path).toBe('system[0]');
    expect(error.requestIndex).toBe(1);
    expect(error.message).toContain('request 0 → request 1: the global zone changed at system[0]');
    expect(error.message).toMatch(/before: system\[0\] .*10:00/);
    expect(error.message).toMatch(/after: {2}system\[0\] \[global\] .*10:05/);
  });

  it('shows control characters escaped in excerpts, so a changed newline is visible', () => {
    const error = instability(() =>
      assertStablePrefix([assemble(sessionWithPersona('One.\nTwo.')), assemble(sessionWithPersona('One.\r\nTwo.'))]),
    );
    expect(error.message).toContain('One.\\nTwo.');
    expect(error.message).toContain('One.\\r\\nTwo.');
  });

  it('catches a history rewrite unless only the static zones are required', () => {
    const session = demoSession();
    const before = assemble(session, { now: DEMO_NOW });
    session.rewriteHistory([{ role: 'user', content: [{ type: 'text', text: 'summary' }] }], 'compaction');
    const after = assemble(session, { now: DEMO_NOW });
    const error = instability(() => assertStablePrefix([before, after]));
    expect(error.zone).toBe('history');
    expect(error.path).toBe('messages[2].content[0]');
    expect(() => assertStablePrefix([before, after], { through: 'session' })).not.toThrow();
  });

  it('reports a model switch', () => {
    const session = demoSession();
    const before = assemble(session, { now: DEMO_NOW });
    session.setModel('other-model');
    const error = instability(() => assertStablePrefix([before, assemble(session, { now: DEMO_NOW })]));
    expect(error.zone).toBe('model');
    expect(error.message).toContain('model changed');
  });

  it('reports a later request that is shorter than the earlier one', () => {
    const session = demoSession();
    const before = assemble(session, { now: DEMO_NOW });
    const shorter = { ...before, blocks: before.blocks.slice(0, 3), tail: { ...before.tail, items: [] } };
    const error = instability(() => assertStablePrefix([before, shorter]));
    expect(error.message).toContain('the later request is shorter');
  });
});

describe('zoneHashReport', () => {
  it('summarises each zone; only the changed zone’s hash changes', () => {
    const session = demoSession();
    const first = zoneHashReport(assemble(session, { now: DEMO_NOW }));
    const second = zoneHashReport(assemble(session, { now: DEMO_NOW + 60_000 }));
    expect(first.global.blocks).toBe(4);
    expect(first.session.blocks).toBe(3);
    expect(first.history.blocks).toBe(5);
    expect(first.tail.blocks).toBe(1);
    expect(second.global).toEqual(first.global);
    expect(second.session).toEqual(first.session);
    expect(second.history).toEqual(first.history);
    expect(second.tail.zoneHash).not.toBe(first.tail.zoneHash);
    expect(first.global.bytes).toBeGreaterThan(100);
    expect(formatZoneHashReport(first)).toMatch(/^zone +blocks +bytes[\s\S]*history +5 /);
  });
});
