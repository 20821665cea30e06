import { describe, expect, it } from 'vitest';
import { EventBus } from '../events/event-bus.js';
import { ToolExecutionError } from '../model/errors.js';
import { Session } from '../session/session.js';
import { restoreActivationBudget } from './restore-activation-budget.js';
import { SkillTools } from './skill-tools.js';
import { startSkillSession } from './start-skill-session.js';
import { makeSkill, makeStore } from './test-fixtures/fixtures.js';

const store = makeStore(['alpha', 'beta', 'gamma', 'delta', 'preset'].map((name) => makeSkill(name, { bodyChars: 800 })));

describe('restoreActivationBudget', () => {
  it('rebuilds explicit activations from history, ignoring pointers and failures', () => {
    const { session, tools } = startSkillSession(
      { id: 's', model: 'm', global: { system: [{ label: 'persona', text: 'Agent.' }] }, bus: new EventBus() },
      { store, mode: 'on-demand', preloaded: ['preset'], budget: { maxExplicitActivations: 2 }, logger: { warn: () => {} } },
    );
    let id = 0;
    const load = (name: string) => {
      const call = { type: 'tool_use' as const, id: `t${++id}`, name: 'skill_load', input: { name } };
      session.append({ role: 'assistant', content: [call] });
      session.append({ role: 'user', content: [tools!.execute(call).block] });
    };
    session.appendUserText('start');
    for (const name of ['alpha', 'preset', 'alpha', 'beta', 'gamma']) load(name);
    session.append({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    const before = tools!.handle('skill_search', { query: '' }, null).text;

    const restored = Session.fromJSON(JSON.parse(JSON.stringify(session.toJSON())));
    const budget = restoreActivationBudget(restored.history, { preloaded: ['preset'], limits: { maxExplicitActivations: 2 } });
    expect(budget.loaded.map((activation) => [activation.name, activation.toolUseId])).toEqual([
      ['alpha', 't1'],
      ['beta', 't4'],
    ]);
    const again = new SkillTools({ store, budget, session: restored });
    expect(again.handle('skill_search', { query: '' }, null).text).toBe(before);
    expect(() => again.handle('skill_load', { name: 'delta' }, null)).toThrow(ToolExecutionError);
    expect(again.handle('skill_load', { name: 'alpha' }, null).metadata).toMatchObject({ already_loaded: true });
  });
});
