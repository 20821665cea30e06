/**
 * The published cache regression guards, restated for Cachet. Sources (../shared/seeds/):
 * 003 (a four-part message assembly with a volatile tail, its prefix tests, and the follow-up
 * fix for the fake-user-turn regression) and 001 (matched skills moved out of the system
 * prompt, with a SHA-256 equality test on the system prompt). Pure functions, no provider.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../model/canonical-json.js';
import { sha256 } from '../model/hash.js';
import type { JsonValue } from '../model/json.js';
import type { CanonicalRequest } from '../model/request.js';
import { assertStablePrefix, longestCommonPrefix, zoneHashReport } from '../testing/index.js';
import { assemble } from './assemble.js';
import { Session } from './session.js';
import { DEMO_NOW, demoSession } from './test-support/demo-session.js';

const HOUR = 3_600_000;

/** The bytes every provider puts first: tools and system segments. */
function systemPrefixSha(request: CanonicalRequest): string {
  return sha256(canonicalJson({ tools: request.tools, system: request.system } as unknown as JsonValue));
}

function persistedText(request: CanonicalRequest): string {
  return canonicalJson({ tools: request.tools, system: request.system, messages: request.messages } as unknown as JsonValue);
}

/** Drive three turns, each with its own recall marker, working context and clock. */
function threeTurns() {
  const recall = { text: '' };
  const workingContext = { text: '' };
  const session = demoSession({ recall, workingContext });
  const requests: CanonicalRequest[] = [];
  for (let turn = 1; turn <= 3; turn++) {
    recall.text = `[memory-recall] RECALL-MARKER-TURN-${turn}`;
    workingContext.text = `[working-context] editing file-${turn}.ts`;
    session.appendUserText(`Question ${turn}`);
    requests.push(assemble(session, { now: DEMO_NOW + turn * HOUR }));
    session.append({ role: 'assistant', content: [{ type: 'text', text: `Answer ${turn}` }] });
  }
  return { session, requests };
}

describe('regression guards (seed 003: volatile tail, stable prefix)', () => {
  it('keeps the system prefix byte-identical (SHA-256) across turns whatever the tail holds', () => {
    const { requests } = threeTurns();
    const hashes = requests.map(systemPrefixSha);
    expect(new Set(hashes).size).toBe(1);
    // The tails really differed: time, recall and working context changed every turn.
    const tails = requests.map((request) => canonicalJson(request.tail as unknown as JsonValue));
    expect(new Set(tails).size).toBe(3);
    const reports = requests.map(zoneHashReport);
    expect(new Set(reports.map((report) => report.global.zoneHash)).size).toBe(1);
    expect(new Set(reports.map((report) => report.session.zoneHash)).size).toBe(1);
  });

  it('extends the common prefix of consecutive requests through history (at least 3 messages)', () => {
    const { requests } = threeTurns();
    assertStablePrefix(requests);
    for (let index = 1; index < requests.length; index++) {
      const before = requests[index - 1] as CanonicalRequest;
      const after = requests[index] as CanonicalRequest;
      const common = longestCommonPrefix(before, after);
      const persistedBefore = before.blocks.filter((block) => block.zone !== 'tail').length;
      expect(common.blocks).toBeGreaterThanOrEqual(persistedBefore);
      // The earlier request's tail meets the later request's new history: nothing persisted diverged.
      expect(common.divergence?.a?.zone).toBe('tail');
      expect(common.divergence?.b?.zone).toBe('history');
      // Messages wholly inside the common prefix: session static pair plus all earlier history.
      const commonMessages = new Set(
        before.blocks
          .slice(0, common.blocks)
          .filter((b) => b.path.startsWith('messages['))
          .map((b) => b.path.split('.')[0]),
      );
      expect(commonMessages.size).toBeGreaterThanOrEqual(3);
      expect(commonMessages.size).toBe(before.messages.length);
    }
  });

  it('puts a turn-specific recall marker only in that turn’s tail, never in the next request', () => {
    const { requests } = threeTurns();
    requests.forEach((request, index) => {
      const marker = `RECALL-MARKER-TURN-${index + 1}`;
      expect(request.tail.items.some((item) => item.kind === 'memory-recall' && item.text.includes(marker))).toBe(true);
      expect(persistedText(request)).not.toContain('RECALL-MARKER');
      expect(persistedText(request)).not.toContain('[working-context]');
      const next = requests[index + 1];
      if (next) expect(canonicalJson(next as unknown as JsonValue)).not.toContain(marker);
    });
  });

  it('puts the session id and attachment hint in the session static zone', () => {
    const { requests } = threeTurns();
    const sessionSegments = requests[0]?.system.filter((segment) => segment.zone === 'session') ?? [];
    expect(sessionSegments.map((segment) => segment.text).join('\n')).toMatch(/Session id demo-session-1\. Attachments: none\./);
  });

  it('produces nothing for an empty tail', () => {
    const recall = { text: '' };
    const quiet = new Session({ id: 'quiet', model: 'm', global: { system: [{ label: 'persona', text: 'p' }] } });
    quiet.appendUserText('hi');
    const request = assemble(quiet);
    expect(request.tail.items).toEqual([]);
    expect(request.blocks.some((block) => block.zone === 'tail')).toBe(false);
    // Providers that render nothing (null, '') add nothing either.
    const session = demoSession({ recall });
    session.appendUserText('hi');
    expect(assemble(session, { now: DEMO_NOW }).tail.items.map((item) => item.kind)).toEqual(['time']);
  });

  it('has no user-role message after the last tool result mid-tool-loop, other than the tool results', () => {
    const recall = { text: '[memory-recall] something relevant' };
    const session = demoSession({ recall });
    session.appendUserText('Run the tests.');
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'run_tests', input: {} }] });
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 'toolu_2', content: [{ type: 'text', text: '3 passed' }] }],
    });
    const request = assemble(session, { now: DEMO_NOW });
    expect(request.tail.inToolLoop).toBe(true);
    expect(request.tail.items.length).toBeGreaterThan(0);
    let lastToolResult = -1;
    request.messages.forEach((message, index) => {
      if (message.content.some((block) => block.type === 'tool_result')) lastToolResult = index;
    });
    expect(lastToolResult).toBe(request.messages.length - 1);
    const after = request.messages.slice(lastToolResult);
    for (const message of after) {
      expect(message.role).toBe('user');
      expect(message.content.every((block) => block.type === 'tool_result')).toBe(true);
    }
    expect(canonicalJson(request.messages as unknown as JsonValue)).not.toContain('something relevant');
    // Tail blocks come after every message block, so an adapter can place them without a new turn.
    const firstTail = request.blocks.findIndex((block) => block.zone === 'tail');
    expect(request.blocks.slice(firstTail).every((block) => block.zone === 'tail')).toBe(true);
  });
});

describe('regression guards (seed 001: per-turn skills outside the system prompt)', () => {
  it('keeps the system prompt byte-identical (SHA-256) when the same message is sent twice with skills matched', () => {
    const session = demoSession();
    const skill = {
      kind: 'skills' as const,
      position: 'before-user-text' as const,
      text: '<skill name="tsc-errors">Read the first error.</skill>',
    };
    session.appendUserText('Explain this error');
    const first = assemble(session, { now: DEMO_NOW, tail: [skill] });
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'It is an implicit any.' }] });
    session.appendUserText('Explain this error');
    const second = assemble(session, { now: DEMO_NOW + HOUR, tail: [skill] });
    const third = assemble(session, { now: DEMO_NOW + 2 * HOUR, tail: [] });
    expect(systemPrefixSha(second)).toBe(systemPrefixSha(first));
    expect(systemPrefixSha(third)).toBe(systemPrefixSha(first));
    expect(canonicalJson(first.system as unknown as JsonValue)).not.toContain('tsc-errors');
    expect(first.tail.items).toContainEqual(skill);
    assertStablePrefix([first, second, third]);
  });
});
