import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import { recordEvents } from '../trace/record-events.js';
import { openSqliteTraceStore } from '../trace/sqlite-trace-store.js';
import { loadSkillStore } from './load-skills.js';
import { startSkillSession } from './start-skill-session.js';
import { FIXTURE_SKILLS_ROOT } from './test-fixtures/fixtures.js';

const skills = await loadSkillStore([{ path: FIXTURE_SKILLS_ROOT, label: 'fixtures' }]);

/**
 * The path a real agent takes: skill events on the session's bus, recorded into a trace
 * store, rolled up by `load_reason`. The rollup must agree with the events as emitted.
 */
describe('skill events in the trace store', () => {
  it('rolls up always and on_demand loads and keeps tool.failed with its payload', async () => {
    const bus = new EventBus();
    const emitted: CachetEvent[] = [];
    bus.onAny((event) => emitted.push(event));
    const store = openSqliteTraceStore(':memory:');
    const recorder = recordEvents(bus, store);
    let now = 1_700_000_000_000;
    const { session, tools } = startSkillSession(
      {
        id: 'skills-trace',
        model: 'claude-sonnet-4-5',
        global: { system: [{ label: 'persona', text: 'You are a careful engineering agent.' }] },
        bus,
        clock: () => now++,
      },
      { store: skills, mode: 'on-demand', preloaded: ['pdf-tools'] },
    );
    session.appendUserText('cut a release');
    const loaded = tools!.execute({ type: 'tool_use', id: 'toolu_1', name: 'skill_load', input: { name: 'git-release' } });
    const failed = tools!.execute({ type: 'tool_use', id: 'toolu_2', name: 'skill_load', input: { name: 'no-such-skill' } });
    expect(loaded.block.isError).toBeUndefined();
    expect(failed.block.isError).toBe(true);
    await recorder.stop();

    const loads = emitted.filter((event): event is CachetEvent<'skill.loaded'> => event.type === 'skill.loaded');
    const tokensOf = (skillId: string) => loads.find((event) => event.payload.skillId === skillId)!.payload.loadTokens;
    expect(loads.map((event) => [event.payload.skillId, event.payload.loadReason])).toEqual([
      ['pdf-tools', 'always'],
      ['git-release', 'on_demand'],
    ]);

    const report = await store.skills();
    expect(report.byReason).toEqual([
      { loadReason: 'always', loads: 1, loadTokens: tokensOf('pdf-tools'), distinctSkills: 1, sessions: 1 },
      { loadReason: 'on_demand', loads: 1, loadTokens: tokensOf('git-release'), distinctSkills: 1, sessions: 1 },
    ]);
    expect(report.bySkill).toEqual([
      { skillId: 'git-release', loadReason: 'on_demand', loads: 1, loadTokens: tokensOf('git-release') },
      { skillId: 'pdf-tools', loadReason: 'always', loads: 1, loadTokens: tokensOf('pdf-tools') },
    ]);
    expect((await store.skills({ sessionId: 'other-session' })).byReason).toEqual([]);

    const stored = await store.events({ sessionId: 'skills-trace', types: ['tool.failed'] });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.payload).toMatchObject({ toolName: 'skill_load', toolUseId: 'toolu_2', code: 'tool_failed' });
    expect(JSON.stringify(stored[0]!.payload)).toContain('no-such-skill');
    // Every emitted event is stored, in order.
    expect((await store.events({ sessionId: 'skills-trace' })).map((event) => event.type)).toEqual(
      emitted.map((event) => event.type),
    );
    await store.close();
  });
});
