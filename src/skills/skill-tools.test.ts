import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import type { ToolUseBlock } from '../model/content.js';
import { ToolExecutionError } from '../model/errors.js';
import { ActivationBudget, FREE_BUDGET_HINT } from './activation-budget.js';
import { preloadedSkillSection } from './discovery-index.js';
import { SkillTools } from './skill-tools.js';
import { makeSkill, makeStore } from './test-fixtures/fixtures.js';

const counter = { countText: (text: string) => Math.ceil(text.length / 4) };

function setup(options: { preloaded?: string[]; sizes?: Record<string, number> } = {}) {
  const sizes = options.sizes ?? { alpha: 400, beta: 400, gamma: 400, delta: 400, preset: 400 };
  const store = makeStore(
    Object.entries(sizes).map(([name, chars]) => makeSkill(name, { bodyChars: chars, description: `The ${name} skill.` })),
  );
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  const warnings: string[] = [];
  const budget = new ActivationBudget({ preloaded: options.preloaded, logger: { warn: (message) => warnings.push(message) } });
  const session = { id: 's1', bus, clock: () => 1_000 };
  const tools = new SkillTools({ store, budget, session, tokenCounter: counter });
  let next = 0;
  const call = (name: string, input: Record<string, string>) => {
    const toolUse: ToolUseBlock = { type: 'tool_use', id: `toolu_${++next}`, name, input };
    return tools.execute(toolUse);
  };
  return { store, budget, tools, events, warnings, call };
}

const textOf = (result: { block: { content: Array<{ type: string; text?: string }> } }) =>
  result.block.content.map((part) => part.text).join('');

describe('skill_load', () => {
  it('returns the body as the tool result and emits one on_demand skill.loaded', () => {
    const { call, events, store } = setup();
    const result = call('skill_load', { name: 'alpha' });
    const skill = store.get('alpha')!;
    expect(textOf(result)).toBe(preloadedSkillSection(skill));
    expect(result.block.isError).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'skill.loaded',
      sessionId: 's1',
      payload: {
        source: 'test',
        skillId: 'alpha',
        version: skill.version,
        loadTokens: counter.countText(preloadedSkillSection(skill)),
        loadReason: 'on_demand',
        toolUseId: 'toolu_1',
      },
    });
  });

  it('re-loading an explicitly loaded skill returns a pointer, costs nothing and emits nothing', () => {
    const { call, events, budget } = setup();
    call('skill_load', { name: 'alpha' });
    const tokens = budget.loadedTokens;
    const again = call('skill_load', { name: 'alpha' });
    expect(textOf(again)).toContain('already loaded earlier in this session (tool call toolu_1)');
    expect(textOf(again)).not.toContain('Step for alpha');
    expect(again.metadata).toMatchObject({ already_loaded: true });
    expect(budget.loadedTokens).toBe(tokens);
    expect(budget.loaded).toHaveLength(1);
    expect(events).toHaveLength(1);
    // Re-loads do not use up activations: two more distinct skills still fit the cap of 3.
    call('skill_load', { name: 'beta' });
    expect(call('skill_load', { name: 'gamma' }).block.isError).toBeUndefined();
  });

  it('a pre-activated skill returns a pointer to its system prompt section with already_preloaded', () => {
    const { call, events, budget } = setup({ preloaded: ['preset'] });
    const result = call('skill_load', { name: 'preset' });
    expect(textOf(result)).toBe(
      '# Skill: preset (source: test)\n\nThis skill\'s body is already loaded in the system prompt (pre-activated at session start). Re-read the system prompt section "# Skill: preset" for its operating instructions.',
    );
    expect(result.metadata).toMatchObject({ already_preloaded: true });
    expect(events).toEqual([]);
    expect(budget.loaded).toEqual([]);
    expect(budget.loadedTokens).toBe(0);
  });

  it('refuses a fourth distinct skill with the count, limit, loaded names and how to free budget', () => {
    const { call, events } = setup();
    for (const name of ['alpha', 'beta', 'gamma']) call('skill_load', { name });
    const refused = call('skill_load', { name: 'delta' });
    const expected = `activation budget exhausted: 3 skills already activated this session (limit 3). Already loaded: [alpha, beta, gamma]. "delta" was not loaded. ${FREE_BUDGET_HINT}`;
    expect(refused.block).toEqual({
      type: 'tool_result',
      toolUseId: 'toolu_4',
      content: [{ type: 'text', text: expected }],
      isError: true,
    });
    const failed = events.filter((event) => event.type === 'tool.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.payload).toEqual({ toolName: 'skill_load', toolUseId: 'toolu_4', code: 'tool_failed', message: expected });
    expect(events.filter((event) => event.type === 'skill.loaded')).toHaveLength(3);
  });

  it('refuses a body that would pass the 30,000-token hard cap, whatever the count', () => {
    // 4 chars a token: 88,000 chars ≈ 22,000 tokens; 36,000 chars ≈ 9,000 tokens.
    const { call, budget } = setup({ sizes: { big: 88_000, medium: 36_000, small: 400 } });
    call('skill_load', { name: 'big' });
    const refused = call('skill_load', { name: 'medium' });
    expect(refused.block.isError).toBe(true);
    const message = textOf(refused);
    expect(message).toMatch(
      /^activation budget exhausted: loading "medium" \(\d+ tokens\) would bring loaded skill bodies to \d+ tokens \(limit 30000\); 1 skills already activated this session \(limit 3\)\. Already loaded: \[big\]\./,
    );
    expect(message).toContain(FREE_BUDGET_HINT);
    expect(budget.loaded.map((activation) => activation.name)).toEqual(['big']);
    expect(call('skill_load', { name: 'small' }).block.isError).toBeUndefined();
  });

  it('logs one warning, and no event, once loaded bodies pass 10,000 tokens', () => {
    const { call, warnings, events } = setup({ sizes: { one: 24_000, two: 24_000, three: 4_000 } });
    call('skill_load', { name: 'one' });
    expect(warnings).toEqual([]);
    call('skill_load', { name: 'two' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/reached \d+ tokens this session \(warning threshold 10000, hard cap 30000\); loaded: one, two/);
    call('skill_load', { name: 'three' });
    expect(warnings).toHaveLength(1);
    expect(events.map((event) => event.type)).toEqual(['skill.loaded', 'skill.loaded', 'skill.loaded']);
  });

  it('names unknown skills and bad input as tool failures the agent sees', () => {
    const { call, events } = setup();
    expect(textOf(call('skill_load', { name: 'nope' }))).toMatch(
      /unknown skill "nope"\. Known skills: alpha, beta, delta, gamma, preset/,
    );
    expect(textOf(call('skill_load', { skill: 'alpha' }))).toMatch(/invalid skill_load input/);
    expect(events.map((event) => event.type)).toEqual(['tool.failed', 'tool.failed']);
  });

  it('handle() throws ToolExecutionError for harnesses with their own dispatcher', () => {
    const { tools } = setup();
    for (const name of ['alpha', 'beta', 'gamma']) tools.handle('skill_load', { name }, null);
    expect(() => tools.handle('skill_load', { name: 'delta' }, null)).toThrow(ToolExecutionError);
  });

  it('honours overridden limits', () => {
    const store = makeStore([makeSkill('a'), makeSkill('b')]);
    const budget = new ActivationBudget({ limits: { maxExplicitActivations: 1 }, logger: { warn: () => {} } });
    const tools = new SkillTools({ store, budget, session: { id: 's', bus: undefined, clock: () => 0 } });
    tools.handle('skill_load', { name: 'a' }, null);
    expect(() => tools.handle('skill_load', { name: 'b' }, null)).toThrow(/1 skills already activated this session \(limit 1\)/);
  });

  it('release() gives budget back after compaction removed a body', () => {
    const { tools, budget, store } = setup();
    for (const name of ['alpha', 'beta', 'gamma']) tools.handle('skill_load', { name }, null);
    expect(() => tools.handle('skill_load', { name: 'delta' }, null)).toThrow(ToolExecutionError);
    expect(budget.release('beta')).toBe(true);
    expect(budget.release('beta')).toBe(false);
    const delta = tools.handle('skill_load', { name: 'delta' }, null);
    expect(delta.text).toBe(preloadedSkillSection(store.get('delta')!));
    expect(budget.loaded.map((activation) => activation.name)).toEqual(['alpha', 'gamma', 'delta']);
  });
});

describe('skill_search', () => {
  it('filters names and descriptions by case-insensitive substring', () => {
    const { call } = setup({ preloaded: ['preset'] });
    call('skill_load', { name: 'beta' });
    expect(textOf(call('skill_search', { query: 'ALPHA' }))).toBe('- alpha: The alpha skill.');
    expect(textOf(call('skill_search', { query: 'skill' })).split('\n')).toEqual([
      '- alpha: The alpha skill.',
      '- beta [loaded]: The beta skill.',
      '- delta: The delta skill.',
      '- gamma: The gamma skill.',
      '- preset [preloaded]: The preset skill.',
    ]);
    expect(textOf(call('skill_search', { query: 'zzz' }))).toBe('No skill name or description contains "zzz".');
  });
});

describe('hostile skill tool input', () => {
  it('does not echo a 10 MB skill_load name into the tool result', () => {
    const { call } = setup();
    const result = call('skill_load', { name: 'n'.repeat(10_000_000) });
    expect(result.block.isError).toBe(true);
    expect(textOf(result).length).toBeLessThan(500);
    expect(textOf(result)).toMatch(/invalid skill_load input: name: .*64/);
  });

  it('does not echo a 10 MB skill_search query either', () => {
    const { call } = setup();
    const result = call('skill_search', { query: 'q'.repeat(10_000_000) });
    expect(result.block.isError).toBe(true);
    expect(textOf(result).length).toBeLessThan(500);
  });
});
