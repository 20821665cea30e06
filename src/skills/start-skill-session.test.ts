import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { CONTEXT_ACKNOWLEDGEMENT } from '../injection/working-memory.js';
import { canonicalJson } from '../model/canonical-json.js';
import type { JsonValue } from '../model/json.js';
import { convertToAnthropic } from '../providers/anthropic/convert-request.js';
import { planRequestPadding } from '../providers/anthropic/padding.js';
import { assemble } from '../session/assemble.js';
import type { SessionOptions } from '../session/session.js';
import { loadSkillStore } from './load-skills.js';
import { type PreloadPlanner, startSkillSession } from './start-skill-session.js';
import { FIXTURE_SKILLS_ROOT } from './test-fixtures/fixtures.js';

const store = await loadSkillStore([{ path: FIXTURE_SKILLS_ROOT, label: 'fixtures' }]);

function baseOptions(bus: EventBus, model = 'claude-sonnet-4-5'): SessionOptions {
  return {
    id: 'sess-1',
    model,
    global: { system: [{ label: 'persona', text: 'You are a careful engineering agent.' }] },
    bus,
    clock: () => 1_700_000_000_000,
  };
}

function recorder() {
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  return { bus, events };
}

/** The planner wired to the Anthropic adapter's padding, as docs/skills.md shows. */
const anthropicPlanner: PreloadPlanner = (request, skills) =>
  planRequestPadding(request, { skills, padding: 'always' }).blocks.filter((block) => block.source === 'skill');

describe('startSkillSession: on-demand mode with pre-activation', () => {
  it('emits session.started, then one always skill.loaded per preloaded skill in name order, then turn.started', () => {
    const { bus, events } = recorder();
    const { session } = startSkillSession(baseOptions(bus), {
      store,
      mode: 'on-demand',
      preloaded: ['pdf-tools', 'git-release'],
    });
    session.appendUserText('hello');
    expect(events.map((event) => event.type)).toEqual(['session.started', 'skill.loaded', 'skill.loaded', 'turn.started']);
    const loaded = events.filter((event): event is CachetEvent<'skill.loaded'> => event.type === 'skill.loaded');
    expect(loaded.map((event) => event.payload.skillId)).toEqual(['git-release', 'pdf-tools']);
    for (const event of loaded) {
      expect(event.sessionId).toBe('sess-1');
      expect(event.payload).toMatchObject({ loadReason: 'always', toolUseId: null, source: 'fixtures' });
      expect(event.payload.version).toBe(store.get(event.payload.skillId)?.version);
      expect(event.payload.loadTokens).toBeGreaterThan(0);
    }
  });

  it('puts the index, annotated, in the global system and the two skill tools in the global tools', () => {
    const { bus } = recorder();
    const { session } = startSkillSession(baseOptions(bus), { store, mode: 'on-demand', preloaded: ['pdf-tools'] });
    const request = assemble(session);
    const index = request.system.find((segment) => segment.label === 'skill-index');
    expect(index?.zone).toBe('global');
    expect(index?.text).toContain('- pdf-tools [preloaded]: Extract text');
    expect(index?.text).toContain('- git-release: Cut a release');
    expect(request.tools.map((tool) => tool.name)).toEqual(['skill_search', 'skill_load']);
    expect(request.layout.globalToolCount).toBe(2);
  });

  it('agrees with the Anthropic padding: events, [preloaded] marks and wire sections name the same skills', () => {
    const { bus, events } = recorder();
    const { session, tools, preloaded } = startSkillSession(baseOptions(bus, 'claude-haiku-4-5'), {
      store,
      mode: 'on-demand',
      planPreloaded: anthropicPlanner,
    });
    session.appendUserText('go');
    const request = assemble(session);
    const skills = store.skills.map((skill) => ({ name: skill.name, body: skill.body }));
    const { body, metadata } = convertToAnthropic(request, { skills, padding: 'always' });
    const padded = metadata.padding?.paddedSkills ?? [];
    expect(padded.length).toBeGreaterThan(0);
    expect(preloaded.map((skill) => skill.name)).toEqual(padded);
    const always = events.filter((event): event is CachetEvent<'skill.loaded'> => event.type === 'skill.loaded');
    expect(always.map((event) => event.payload.skillId)).toEqual(padded);
    expect(always.map((event) => event.payload.loadTokens)).toEqual(
      metadata.paddingBlocks.filter((b) => b.source === 'skill').map((b) => b.tokens),
    );
    const systemText = (body.system as Array<{ text: string }>).map((block) => block.text).join('\n');
    for (const name of padded) {
      expect(systemText).toContain(`# Skill: ${name}\n\n`);
      expect(systemText).toContain(`- ${name} [preloaded]: `);
    }
    expect(events.map((event) => event.type).indexOf('turn.started')).toBe(events.length - 1);
    // The pointer for a preloaded skill: no body, no event, no budget.
    const before = events.length;
    const pointer = tools!.execute({ type: 'tool_use', id: 'toolu_1', name: 'skill_load', input: { name: padded[0]! } });
    expect(pointer.metadata).toMatchObject({ already_preloaded: true });
    expect(events.length).toBe(before);
  });

  it('a loaded body lands in history once, as a tool result, and the system prompt never changes', () => {
    const { bus, events } = recorder();
    const { session, tools } = startSkillSession(baseOptions(bus), { store, mode: 'on-demand' });
    const systemOf = () =>
      canonicalJson({ tools: assemble(session).tools, system: assemble(session).system } as unknown as JsonValue);
    const startSystem = systemOf();
    const body = store.get('git-release')!.body;
    const loadTurn = (id: string, text: string) => {
      session.appendUserText(text);
      const call = { type: 'tool_use' as const, id, name: 'skill_load', input: { name: 'git-release' } };
      session.append({ role: 'assistant', content: [call] });
      session.append({ role: 'user', content: [tools!.execute(call).block] });
      session.append({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
    };
    loadTurn('toolu_a', 'cut a release');
    loadTurn('toolu_b', 'cut another release');
    const saved = JSON.stringify(session.toJSON().history);
    expect(body).toContain('Collect merged pull requests since the last tag');
    expect(saved.split('Collect merged pull requests since the last tag').length - 1).toBe(1);
    expect(systemOf()).toBe(startSystem);
    expect(events.filter((event) => event.type === 'skill.loaded')).toHaveLength(1);
  });

  it('refuses preloaded names that are not in the store', () => {
    const { bus } = recorder();
    expect(() => startSkillSession(baseOptions(bus), { store, mode: 'on-demand', preloaded: ['ghost'] })).toThrow(
      /preloaded\[0\].*ghost/,
    );
  });
});

describe('startSkillSession: working memory', () => {
  it('restores working memory as a [CONTEXT] user/assistant pair in the session static zone', () => {
    const { bus } = recorder();
    const { session } = startSkillSession(baseOptions(bus), {
      store,
      mode: 'off',
      workingMemory: { sections: [{ heading: 'RECENT ENTITIES', items: ['page "Home" (page-123)'] }] },
    });
    session.appendUserText('continue');
    const request = assemble(session);
    expect(request.layout.sessionMessageCount).toBe(2);
    expect(request.messages[0]).toMatchObject({ role: 'user' });
    const first = request.messages[0]!.content[0]!;
    expect(first.type === 'text' && first.text).toMatch(
      /^\[CONTEXT\] .*\n\n\[RECENT ENTITIES\]\n- page "Home" \(page-123\)\n\n/s,
    );
    expect(request.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: CONTEXT_ACKNOWLEDGEMENT }] });
    expect(request.blocks.filter((block) => block.zone === 'session').map((block) => block.path)).toEqual([
      'messages[0].content[0]',
      'messages[1].content[0]',
    ]);
    expect(canonicalJson(request.system as unknown as JsonValue)).not.toContain('RECENT ENTITIES');
  });

  it.each([null, '', '   ', { sections: [] }, { sections: [{ heading: 'X', items: ['  '] }] }])(
    'adds nothing for empty memory (%j): the request is byte-identical to one without memory',
    (memory) => {
      const plain = startSkillSession(baseOptions(recorder().bus), { store, mode: 'off' }).session;
      const withEmpty = startSkillSession(baseOptions(recorder().bus), { store, mode: 'off', workingMemory: memory }).session;
      plain.appendUserText('hi');
      withEmpty.appendUserText('hi');
      expect(assemble(withEmpty).layout.sessionMessageCount).toBe(0);
      expect(assemble(withEmpty).blocks).toEqual(assemble(plain).blocks);
    },
  );
});

describe('startSkillSession: modes without the index', () => {
  it('off and per-turn modes add no index and no skill tools', () => {
    for (const mode of ['off', 'per-turn'] as const) {
      const { session, tools, budget } = startSkillSession(baseOptions(recorder().bus), { store, mode });
      const request = assemble(session);
      expect(request.tools).toEqual([]);
      expect(request.system.map((segment) => segment.label)).toEqual(['persona']);
      expect(tools).toBeNull();
      expect(budget).toBeNull();
    }
  });
});
