import { describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { EventBus } from '../events/event-bus.js';
import type { ToolResultBlock, ToolUseBlock } from '../model/content.js';
import { sharedCounter } from '../runtime/prepare-request.js';
import { ActivationBudget } from '../skills/activation-budget.js';
import { SkillTools } from '../skills/skill-tools.js';
import { loadWorkload, parseWorkload } from '../workloads/load-workload.js';
import type { Workload } from '../workloads/workload.js';
import { cachetStrategy } from './cachet-strategy.js';
import { simulateWorkload } from './simulate-workload.js';
import { workloadSkillStore } from './workload-skills.js';

/** Drive the `cachet` strategy through a workload as the simulator does, recording its events. */
function drive(workload: Workload) {
  const bus = new EventBus();
  const events: CachetEvent[] = [];
  bus.onAny((event) => events.push(event));
  const driver = cachetStrategy(workload, { provider: workload.provider, model: workload.model, sessionId: 'skills', bus });
  for (const turn of workload.turns) {
    driver.beginTurn(turn);
    for (const step of turn.steps) {
      driver.request(turn, step);
      driver.endStep(turn, step);
    }
  }
  const results = new Map<string, ToolResultBlock>();
  for (const message of driver.session.history)
    for (const block of message.content) if (block.type === 'tool_result') results.set(block.toolUseId, block);
  return { events, results };
}

function skillLoadCalls(workload: Workload): ToolUseBlock[] {
  return workload.turns.flatMap((turn) =>
    turn.steps.flatMap((step) =>
      step.reply.filter((block): block is ToolUseBlock => block.type === 'tool_use' && block.name === 'skill_load'),
    ),
  );
}

/** What a separate, silent SkillTools over the same skills answers to the same calls, in order. */
function expectedAnswers(workload: Workload) {
  const counter = sharedCounter(workload.provider, workload.model);
  const tools = new SkillTools({
    store: workloadSkillStore(workload),
    budget: new ActivationBudget({ logger: { warn: () => {} } }),
    session: { id: 'expected', bus: undefined, clock: () => 0 },
    tokenCounter: counter,
  });
  return skillLoadCalls(workload).map((call) => ({ call, ...tools.execute(call) }));
}

function onDemandLoads(events: readonly CachetEvent[]) {
  return events.flatMap((event) => (event.type === 'skill.loaded' ? [event.payload] : []));
}

describe('cachetStrategy skill_load', () => {
  it('answers the bundled workload skill loads through SkillTools and emits skill.loaded on_demand', async () => {
    const workload = await loadWorkload('skill-varying-chat');
    const calls = skillLoadCalls(workload);
    expect(calls.map((call) => call.input.name)).toEqual(['sql-review']);
    const { events, results } = drive(workload);
    const counter = sharedCounter(workload.provider, workload.model);
    const sqlReview = workloadSkillStore(workload).get('sql-review')!;
    const text = `# Skill: sql-review\n\n${sqlReview.body}`;
    expect(onDemandLoads(events)).toEqual([
      {
        source: 'workload:skill-varying-chat',
        skillId: 'sql-review',
        version: sqlReview.version,
        loadTokens: counter.countText(text, 'prose'),
        loadReason: 'on_demand',
        toolUseId: calls[0]!.id,
      },
    ]);
    for (const expected of expectedAnswers(workload)) expect(results.get(expected.call.id)).toEqual(expected.block);
    expect(events.some((event) => event.type === 'tool.failed')).toBe(false);
  });

  it('answers a re-load with a pointer and a load over budget with an error result and tool.failed', () => {
    const workload = parseWorkload(JSON.stringify(budgetWorkload()), 'skill-budget.json');
    const { events, results } = drive(workload);
    const calls = skillLoadCalls(workload);
    expect(calls.map((call) => call.input.name)).toEqual(['alpha', 'beta', 'alpha', 'gamma', 'delta']);
    const [alpha, beta, alphaAgain, gamma, delta] = calls.map((call) => results.get(call.id)!);
    const canned = (call: ToolUseBlock) =>
      workload.turns.flatMap((turn) => turn.steps.flatMap((step) => step.toolResults)).find((r) => r.toolUseId === call.id);

    // First loads carry the body, byte for byte the canned result the other strategies append.
    expect([alpha, beta, gamma]).toEqual([calls[0]!, calls[1]!, calls[3]!].map(canned));
    expect(alphaAgain!.isError).toBeUndefined();
    expect(alphaAgain!.content).toEqual([
      { type: 'text', text: expect.stringContaining(`already loaded earlier in this session (tool call ${calls[0]!.id})`) },
    ]);
    expect(delta!.isError).toBe(true);
    expect(delta!.content).toEqual([{ type: 'text', text: expect.stringMatching(/^activation budget exhausted: 3 skills/) }]);
    for (const expected of expectedAnswers(workload)) expect(results.get(expected.call.id)).toEqual(expected.block);

    expect(onDemandLoads(events).map((load) => [load.skillId, load.toolUseId, load.loadReason])).toEqual([
      ['alpha', calls[0]!.id, 'on_demand'],
      ['beta', calls[1]!.id, 'on_demand'],
      ['gamma', calls[3]!.id, 'on_demand'],
    ]);
    const deltaText = (delta!.content[0] as { text: string }).text;
    const failed = events.flatMap((event) => (event.type === 'tool.failed' ? [event.payload] : []));
    expect(failed).toEqual([{ toolName: 'skill_load', toolUseId: calls[4]!.id, code: 'tool_failed', message: deltaText }]);
  });

  it('measures the ideal on the same skill results, so efficiency stays at the limit', () => {
    const workload = parseWorkload(JSON.stringify(budgetWorkload()), 'skill-budget.json');
    const result = simulateWorkload(workload, { strategy: 'cachet' });
    expect(result.totals.idealCacheReadTokens).toBeGreaterThan(0);
    expect(result.totals.efficiency).toBeGreaterThanOrEqual(0.99);
  });
});

/** Four skills, five loads over two turns: a re-load and a fourth distinct load past the count cap of 3. */
function budgetWorkload() {
  const paragraph = (topic: string, count: number) =>
    Array.from(
      { length: count },
      (_, index) =>
        `${index + 1}. When the work touches ${topic}, check the ${index + 1}th rule of the ${topic} checklist first.`,
    ).join('\n');
  const skill = (name: string) => ({ name, description: `How the team handles ${name} work.`, body: paragraph(name, 60) });
  const loads = (...names: string[]) => ({ toolCalls: names.map((name) => ({ skillLoad: name })), latency: '2s' });
  return {
    name: 'skill-budget',
    description: 'Loads skills past the activation budget.',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    start: '2026-05-14T10:00:00Z',
    global: { persona: paragraph('assistant persona', 80) },
    skills: ['alpha', 'beta', 'gamma', 'delta'].map(skill),
    turns: [
      { user: 'Plan the alpha and beta work.', steps: [loads('alpha', 'beta'), { text: 'Planned.' }] },
      { user: 'Now alpha again, then gamma and delta.', steps: [loads('alpha', 'gamma'), loads('delta'), { text: 'Done.' }] },
    ],
  };
}

describe('per-turn request params reach the adapter', () => {
  it("sends a turn's prompt_cache_retention on that turn's requests only", () => {
    const workload = parseWorkload(
      `name: retention-turns
title: Retention per turn
description: A turn that asks for in-memory retention between two that use the model's default.
provider: openai-responses
model: gpt-5
start: 2026-05-14T16:40:00Z
global:
  persona: You answer briefly.
turns:
  - user: First question
    steps:
      - text: First answer.
  - user: Second question
    params: { retention: in_memory }
    steps:
      - text: Second answer.
  - user: Third question
    steps:
      - text: Third answer.
`,
      'retention-turns.yaml',
    );
    const retentions: unknown[] = [];
    simulateWorkload(workload, {
      strategy: 'cachet',
      onBody: (body) => retentions.push((body as { prompt_cache_retention?: unknown }).prompt_cache_retention),
    });
    // gpt-5 accepts both policies; `auto` sends 24h (same price), the turn's own choice wins.
    expect(retentions).toEqual(['24h', 'in_memory', '24h']);
  });
});

describe('per-tool deferLoading', () => {
  const workload = (marks: string) =>
    parseWorkload(
      `name: deferred-tools
title: Deferred tools per tool
description: Two library tools found by the same search; the workload may mark which one is deferred.
provider: anthropic
model: claude-sonnet-5
start: 2026-05-14T16:40:00Z
global:
  persona: You build websites.
  tools:
    - name: searchTools
      description: Find tools by keyword.
      inputSchema: { type: object }
toolLibrary:
  - name: publishPage
    description: Publish a page.
    inputSchema: { type: object }${marks}
  - name: attachImage
    description: Attach an image.
    inputSchema: { type: object }
turns:
  - user: Publish the home page with its image.
    steps:
      - toolCalls:
          - name: searchTools
            input: { q: publish }
            result: found two tools
        discoverTools: [publishPage, attachImage]
      - text: Done.
`,
      'deferred-tools.yaml',
    );
  const lastBody = (file: Workload) => {
    const bodies: unknown[] = [];
    simulateWorkload(file, { strategy: 'cachet', onBody: (body) => bodies.push(body) });
    return bodies.at(-1) as { tools: Array<{ name: string; defer_loading?: boolean }>; messages: Array<{ content: unknown }> };
  };
  const references = (body: ReturnType<typeof lastBody>) =>
    JSON.stringify(body.messages).match(/"tool_reference","tool_name":"(\w+)"/g) ?? [];

  it('defers the whole library when no tool is marked', () => {
    const body = lastBody(workload(''));
    expect(body.tools.filter((tool) => tool.defer_loading).map((tool) => tool.name)).toEqual(['publishPage', 'attachImage']);
    expect(references(body)).toHaveLength(2);
  });

  it('defers only the marked tools and declares the others when found', () => {
    const body = lastBody(workload('\n    deferLoading: true'));
    expect(body.tools.filter((tool) => tool.defer_loading).map((tool) => tool.name)).toEqual(['publishPage']);
    expect(body.tools.filter((tool) => !tool.defer_loading).map((tool) => tool.name)).toContain('attachImage');
    expect(references(body)).toEqual(['"tool_reference","tool_name":"publishPage"']);
  });
});
