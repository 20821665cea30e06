import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus.js';
import { canonicalJson } from '../model/canonical-json.js';
import { sha256 } from '../model/hash.js';
import type { JsonValue } from '../model/json.js';
import type { CanonicalRequest } from '../model/request.js';
import { convertToAnthropic } from '../providers/anthropic/convert-request.js';
import { OPERATING_GUIDELINES } from '../providers/anthropic/operating-guidelines.js';
import { assemble } from '../session/assemble.js';
import { Session, type SessionOptions } from '../session/session.js';
import { currentTimeProvider } from '../session/tail-provider.js';
import { blockBytes, utf8Length } from '../testing/block-bytes.js';
import { loadSkillStore } from './load-skills.js';
import { renderSkillGroup } from './render-skill-group.js';
import type { MatchedSkill } from './skill-matcher.js';
import { startSkillSession } from './start-skill-session.js';
import { FIXTURE_SKILLS_ROOT } from './test-fixtures/fixtures.js';

const store = await loadSkillStore([{ path: FIXTURE_SKILLS_ROOT, label: 'fixtures' }]);

/** Ten user inputs whose matched skills vary: different skills, none, several, repeats. */
const INPUTS = [
  'merge these two PDF files into one',
  'please write the changelog and tag the release',
  'how are you today?',
  'add a nullable column to the users table and write a migration',
  'the site had an outage last night, draft a postmortem',
  'write unit tests for the Button component with vitest',
  'fill the pdf form, then write the changelog and tag the release',
  'merge these two PDF files into one',
  'database schema change for the orders table',
  'thanks, that is all',
];

function options(bus?: EventBus): SessionOptions {
  return {
    id: 'per-turn',
    model: 'claude-sonnet-4-5',
    // A realistic static prefix: persona plus operating guidelines (~4,000 tokens).
    global: { system: [{ label: 'persona', text: `You are a careful engineering agent.\n\n${OPERATING_GUIDELINES}` }] },
    bus,
    clock: () => Date.UTC(2026, 10, 21, 12),
    tail: [currentTimeProvider()],
  };
}

const systemHash = (request: CanonicalRequest) =>
  sha256(canonicalJson({ tools: request.tools, system: request.system } as unknown as JsonValue));

/** Run the ten turns; `reply` is what the model "says" each turn. */
function runSession() {
  const matches: MatchedSkill[][] = [];
  const bus = new EventBus();
  const events: string[] = [];
  bus.onAny((event) => events.push(event.type));
  const { session } = startSkillSession(options(bus), {
    store,
    mode: 'per-turn',
    onMatch: (found) => matches.push([...found]),
    workingMemory: { sections: [{ heading: 'OPEN FILES', items: ['docs/report.pdf'] }] },
  });
  const requests: CanonicalRequest[] = [];
  INPUTS.forEach((input, turn) => {
    session.appendUserText(input);
    requests.push(assemble(session));
    session.append({ role: 'assistant', content: [{ type: 'text', text: `Reply ${turn + 1}: done.` }] });
  });
  return { session, requests, matches, events };
}

describe('per-turn matching mode (seed 001 acceptance criteria)', () => {
  it('matched skills vary between turns while the system prompt hash stays equal', () => {
    const { requests, matches } = runSession();
    const matchedNames = matches.map((found) => found.map((match) => match.skill.name).join(','));
    expect(new Set(matchedNames).size).toBeGreaterThanOrEqual(5);
    expect(matchedNames).toContain('');
    expect(matches.some((found) => found.length >= 2)).toBe(true);
    expect(new Set(requests.map(systemHash)).size).toBe(1);
  });

  it('keeps the [CONTEXT] pair and the static zones unchanged on every turn, the time only in the tail', () => {
    const { requests } = runSession();
    const staticHashes = requests.map(
      (request) => request.blocks.filter((block) => block.zone !== 'history' && block.zone !== 'tail').at(-1)?.prefixHash,
    );
    expect(new Set(staticHashes).size).toBe(1);
    for (const request of requests) {
      expect(request.layout.sessionMessageCount).toBe(2);
      const first = request.messages[0]!.content[0]!;
      expect(first.type === 'text' && first.text.startsWith('[CONTEXT]')).toBe(true);
      expect(request.tail.items.at(-1)).toEqual({ kind: 'time', text: '[current time] 2026-11-21T12:00:00Z', position: 'end' });
      expect(
        canonicalJson({ tools: request.tools, system: request.system, messages: request.messages } as unknown as JsonValue),
      ).not.toContain('2026-11-21');
    }
  });

  it('records no skill.loaded for per-turn matches (auto_suggested stays reserved)', () => {
    const { events } = runSession();
    expect(events.filter((type) => type === 'skill.loaded')).toEqual([]);
    expect(events.filter((type) => type === 'turn.started')).toHaveLength(INPUTS.length);
  });

  it('the same input on two turns gives a byte-identical system prompt and the same skill group', () => {
    const { requests } = runSession();
    const first = requests[0]!;
    const again = requests[7]!;
    expect(systemHash(again)).toBe(systemHash(first));
    const skillsItem = (request: CanonicalRequest) => request.tail.items.find((item) => item.kind === 'skills')?.text;
    expect(skillsItem(again)).toBe(skillsItem(first));
  });

  it('puts the matched bodies in one user-role group just before the user text, on the Anthropic wire', () => {
    const { requests, matches } = runSession();
    const wireSystems = new Set<string>();
    requests.forEach((request, index) => {
      const { body } = convertToAnthropic(request);
      wireSystems.add(sha256(canonicalJson({ system: body.system, tools: body.tools } as unknown as JsonValue)));
      const last = body.messages.at(-1)!;
      expect(last.role).toBe('user');
      const texts = (last.content as Array<{ type: string; text: string }>).map((block) => block.text);
      const group = renderSkillGroup(matches[index]!.map((match) => match.skill));
      const userText = INPUTS[index]!;
      if (group) expect(texts.indexOf(group)).toBe(texts.indexOf(userText) - 1);
      else expect(texts.some((text) => text.includes('<skill '))).toBe(false);
    });
    expect(wireSystems.size).toBe(1);
    // The cache marker on the system prompt survives skill-match changes: same bytes every turn.
    const marked = convertToAnthropic(requests[3]!).body.system as Array<{ cache_control?: unknown }>;
    expect(marked.some((block) => block.cache_control)).toBe(true);
  });

  it("matches once per user input: the steps of a tool loop share the turn's skills", () => {
    const matches: MatchedSkill[][] = [];
    const { session } = startSkillSession(options(), { store, mode: 'per-turn', onMatch: (found) => matches.push([...found]) });
    session.appendUserText('merge these two PDF files into one');
    const first = assemble(session);
    session.append({ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.pdf' } }] });
    session.append({
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: '%PDF-1.7' }] }],
    });
    const step = assemble(session);
    expect(step.tail.inToolLoop).toBe(true);
    expect(step.tail.items.find((item) => item.kind === 'skills')).toEqual(
      first.tail.items.find((item) => item.kind === 'skills'),
    );
    expect(first.tail.items.find((item) => item.kind === 'skills')?.text).toContain('<skill name="pdf-tools"');
    expect(matches).toHaveLength(1);
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
    session.appendUserText('thanks');
    expect(assemble(session).tail.items.map((item) => item.kind)).toEqual(['time']);
    expect(matches).toHaveLength(2);
  });

  it('persists no skill payload: history and the serialized session hold only user text and replies', () => {
    const { session } = runSession();
    const saved = JSON.stringify(session.toJSON());
    expect(saved).not.toContain('<skill');
    for (const skill of store.skills) expect(saved).not.toContain(skill.body.slice(0, 40));
    expect(session.history).toHaveLength(INPUTS.length * 2);
  });

  it('reads >= 90% of input from cache over 10 turns and costs <= 20% of uncached after turn 2; skills in the system prompt do not', () => {
    const { requests, matches } = runSession();
    const tailMode = anthropicCacheModel(requests);
    expect(tailMode.hitRate).toBeGreaterThanOrEqual(0.9);
    expect(tailMode.costAfterSecond).toBeLessThanOrEqual(0.2);

    // The pattern seed 001 replaces: the matched skills rebuilt into the system prompt each turn.
    const inSystem = requests.map((request, index) => {
      const group = renderSkillGroup(matches[index]!.map((match) => match.skill));
      const base = options();
      const session = new Session({
        ...base,
        global: { system: [...base.global.system, ...(group ? [{ label: 'skills', text: group }] : [])] },
      });
      for (const message of request.messages) session.append(message);
      return assemble(session);
    });
    expect(new Set(inSystem.map(systemHash)).size).toBeGreaterThan(1);
    const systemMode = anthropicCacheModel(inSystem);
    expect(systemMode.hitRate).toBeLessThan(0.9);
    expect(systemMode.hitRate).toBeLessThan(tailMode.hitRate - 0.2);
  });
});

/**
 * A small model of Anthropic's cache over canonical bytes: request k can read only entries that
 * request k-1 wrote at its breakpoints (placed by the real adapter), and only when the prefix
 * through that breakpoint is unchanged. Read bytes cost 0.1, bytes up to the request's last
 * breakpoint are written at 1.25, bytes after it (the tail) at 1. Bytes stand in for tokens.
 */
function anthropicCacheModel(requests: CanonicalRequest[]) {
  let read = 0;
  let total = 0;
  const costs: number[] = [];
  let previous: Array<{ path: string; prefixHash: string }> = [];
  requests.forEach((request, index) => {
    const blocks = blockBytes(request);
    const sizes = blocks.map((block) => utf8Length(block.text));
    const through = (position: number) => sizes.slice(0, position + 1).reduce((sum, size) => sum + size, 0);
    const all = through(blocks.length - 1);
    let cached = 0;
    for (const entry of previous) {
      const position = blocks.findIndex((block) => block.path === entry.path && block.prefixHash === entry.prefixHash);
      if (position >= 0) cached = Math.max(cached, through(position));
    }
    const { metadata } = convertToAnthropic(request);
    const marked = metadata.breakpoints
      .map((breakpoint) => blocks.findIndex((block) => block.path === breakpoint.path))
      .filter((position) => position >= 0);
    const written = marked.length > 0 ? through(Math.max(...marked)) : 0;
    previous = marked.map((position) => ({ path: blocks[position]!.path, prefixHash: blocks[position]!.prefixHash }));
    if (index > 0) {
      read += cached;
      total += all;
    }
    costs.push((0.1 * cached + 1.25 * Math.max(0, written - cached) + (all - Math.max(written, cached))) / all);
  });
  const later = costs.slice(2);
  return { hitRate: read / total, costAfterSecond: later.reduce((sum, cost) => sum + cost, 0) / later.length };
}
