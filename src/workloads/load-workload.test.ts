import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { timeText } from '../simulate/workload-content.js';
import { anthropicEstimator } from '../tokens/anthropic-estimator.js';
import { bundledWorkloadNames } from './bundled-workloads.js';
import { generateFiller } from './filler.js';
import { loadWorkload, parseWorkload } from './load-workload.js';
import { workloadRequests } from './workload.js';
import { WorkloadError } from './workload-error.js';

const MINIMAL = `name: tiny
description: A tiny workload.
provider: anthropic
model: claude-sonnet-4-5
start: 2026-05-14T09:00:00Z
global:
  persona: You help.
  tools:
    - name: lookup
      description: Look something up.
      inputSchema: { type: object, properties: { q: { type: string } }, required: [q] }
turns:
  - user: First question
    steps:
      - toolCalls:
          - name: lookup
            input: { q: one }
            result: { tokens: 120, kind: log }
        latency: 3s
      - text: Answer one.
`;

function errorOf(text: string, file = 'tiny.yaml'): WorkloadError {
  try {
    parseWorkload(text, file);
  } catch (error) {
    if (error instanceof WorkloadError) return error;
    throw error;
  }
  throw new Error('expected a WorkloadError');
}

describe('bundled workloads', () => {
  it('ships the workloads of issues 4, 10, 14 and 24, in demo order', () => {
    expect(bundledWorkloadNames()).toEqual([
      'skill-varying-chat',
      'cms-agent',
      'python-app-local',
      'coding-agent',
      'long-session-idle-gaps',
      'below-minimum',
      'scripted-coding-agent',
      'claims-agent-bedrock',
      'research-assistant-gemini',
      'data-analyst-deepseek',
      'due-diligence-subagents',
    ]);
  });

  it('builds the pauses and fan-out of issue 24: subagent calls fork the lead, pauses of 3–40 minutes', async () => {
    const workload = await loadWorkload('due-diligence-subagents');
    const steps = workload.turns.flatMap((turn) => turn.steps);
    const subagents = steps.filter((step) => step.subagentTask !== null);
    expect(subagents).toHaveLength(18);
    expect(subagents.every((step) => step.reply.length === 0 && step.toolResults.length === 0)).toBe(true);
    const gaps = workload.turns.slice(1).map((turn, index) => turn.at - (workload.turns[index]?.steps.at(-1)?.at ?? 0));
    expect(Math.min(...gaps.filter((gap) => gap >= 3 * 60_000))).toBe(3 * 60_000);
    expect(Math.max(...gaps)).toBe(40 * 60_000);
  });

  it('refuses a subagent call that opens or closes a turn, naming the step', () => {
    const file = (steps: unknown[]) => ({
      name: 'fork-misplaced',
      description: 'x',
      provider: 'anthropic',
      model: 'claude-sonnet-5',
      start: '2026-11-20T09:00:00Z',
      global: { persona: 'p', tools: [{ name: 't', description: 'd', inputSchema: { type: 'object' } }] },
      turns: [{ user: 'u', steps }],
    });
    expect(() => parseWorkload(JSON.stringify(file([{ subagent: { task: 'look' } }, { text: 'done' }])), 'f.json')).toThrow(
      /turns\[0\]\.steps\[0\]\.subagent.*forks the parent's previous request/,
    );
    const closing = [{ toolCalls: [{ name: 't', input: {}, result: 'r' }] }, { subagent: { task: 'look' } }];
    expect(() => parseWorkload(JSON.stringify(file(closing)), 'f.json')).toThrow(
      /steps\[1\]\.subagent.*end with the parent's own answer/,
    );
    expect(() => parseWorkload(JSON.stringify(file([{ subagent: { task: '' } }, { text: 'x' }])), 'f.json')).toThrow(
      WorkloadError,
    );
  });

  it('builds the scripted coding agent of issue 10: 6 turns, 17 requests, loops of 2–3 steps, clock and ~90-token recall', async () => {
    const workload = await loadWorkload('scripted-coding-agent');
    expect(workload.turns.map((turn) => turn.steps.length)).toEqual([3, 3, 3, 3, 3, 2]);
    expect(workloadRequests(workload)).toHaveLength(17);
    const counter = anthropicEstimator();
    for (const turn of workload.turns) {
      expect(turn.tail.time).toBe(true);
      // Clock and memory recall together come to about 90 tokens.
      const tokens = counter.countText(turn.tail.memoryRecall ?? '') + counter.countText(timeText(turn.at));
      expect(tokens).toBeGreaterThanOrEqual(80);
      expect(tokens).toBeLessThanOrEqual(100);
    }
    expect(new Set(workload.turns.map((turn) => turn.tail.memoryRecall)).size).toBe(6);
  });

  it.each(bundledWorkloadNames())('%s loads and every request has a later time than the one before', async (name) => {
    const workload = await loadWorkload(name);
    expect(workload.name).toBe(name);
    const requests = workloadRequests(workload);
    expect(requests.length).toBeGreaterThan(0);
    for (let index = 1; index < requests.length; index++) {
      expect(requests[index]!.step.at).toBeGreaterThan(requests[index - 1]!.step.at);
    }
  });

  it('expresses what issue 4 asks for across the bundle', async () => {
    const workloads = await Promise.all(bundledWorkloadNames().map((name) => loadWorkload(name)));
    const byName = Object.fromEntries(workloads.map((workload) => [workload.name, workload]));
    const skillTurns = byName['skill-varying-chat']!.turns.map((turn) => turn.tail.skills.join(','));
    expect(skillTurns).toHaveLength(12);
    expect(skillTurns.every((skills, index) => index === 0 || skills !== skillTurns[index - 1])).toBe(true);
    const chat = byName['skill-varying-chat']!;
    expect(chat.turns.some((turn) => turn.steps.some((step) => step.skillLoads.includes('sql-review')))).toBe(true);
    expect(chat.tools.some((tool) => tool.name === 'skill_load')).toBe(true);
    const cms = byName['cms-agent']!;
    expect(cms.workingMemory).toContain('[RECENT ENTITIES]');
    expect(cms.turns.flatMap((turn) => turn.steps.flatMap((step) => step.discoveredTools)).length).toBeGreaterThan(0);
    expect(cms.turns.some((turn) => turn.images.length > 0)).toBe(true);
    expect(byName['python-app-local']!.turns.every((turn) => turn.tail.time && turn.tail.memoryRecall)).toBe(true);
    const widest = Math.max(
      ...byName['coding-agent']!.turns.flatMap((turn) => turn.steps.map((step) => step.toolResults.length)),
    );
    expect(widest).toBeGreaterThan(20);
    const codingReplies = byName['coding-agent']!.turns.flatMap((turn) => turn.steps.flatMap((step) => step.reply));
    expect(codingReplies.some((block) => block.type === 'thinking' && typeof block.signature === 'string')).toBe(true);
    const long = byName['long-session-idle-gaps']!;
    expect(long.turns).toHaveLength(200);
    const gaps = long.turns.slice(1).map((turn, index) => turn.at - long.turns[index]!.steps.at(-1)!.at);
    expect(gaps.filter((gap) => gap > 5 * 60_000).length).toBeGreaterThan(10);
    expect(byName['below-minimum']!.turns).toHaveLength(2);
  });
});

describe('parseWorkload', () => {
  it('resolves times, ids and sized results deterministically', () => {
    const first = parseWorkload(MINIMAL, 'tiny.yaml');
    const second = parseWorkload(MINIMAL, 'tiny.yaml');
    expect(first).toEqual(second);
    const [turn] = first.turns;
    expect(turn!.at).toBe(Date.parse('2026-05-14T09:00:00Z'));
    expect(turn!.steps[1]!.at - turn!.steps[0]!.at).toBe(3000);
    const result = turn!.steps[0]!.toolResults[0]!;
    const use = turn!.steps[0]!.reply.find((block) => block.type === 'tool_use');
    expect(use && 'id' in use ? use.id : null).toBe(result.toolUseId);
    const text = result.content[0]!.type === 'text' ? result.content[0]!.text : '';
    expect(text.length).toBeGreaterThan(300);
  });

  it('expands repeat blocks with {n}, cycled gaps and idle entries', () => {
    const text = MINIMAL.replace(
      /turns:\n[\s\S]*$/,
      `turns:
  - repeat:
      count: 3
      gaps: [10s, 10m]
      turns:
        - user: "Question {n}"
          steps:
            - text: "Answer {n}"
  - idle: 2h
  - user: After lunch
    steps:
      - text: Welcome back.
`,
    );
    const workload = parseWorkload(text, 'tiny.yaml');
    expect(workload.turns.map((turn) => turn.user)).toEqual(['Question 1', 'Question 2', 'Question 3', 'After lunch']);
    const [one, two, three, four] = workload.turns;
    expect(two!.at - one!.at).toBe(10 * 60_000);
    expect(three!.at - two!.at).toBe(10_000);
    expect(four!.at - three!.at).toBe(2 * 3_600_000 + 45_000);
  });

  it.each([
    ['a misspelt key', MINIMAL.replace('      inputSchema:', '      inputShema:'), 'global.tools[0].inputSchema', /expected/, 9],
    ['an unknown key', MINIMAL.replace('  persona: You help.', '  persona: You help.\n  mood: cheerful'), 'global', /mood/, 8],
    ['a provider it does not know', MINIMAL.replace('provider: anthropic', 'provider: watsonx'), 'provider', /anthropic/, 3],
    [
      'a tool that is not available',
      MINIMAL.replace('- name: lookup\n            input', '- name: search\n            input'),
      'turns[0].steps[0].toolCalls[0].name',
      /not available/,
      16,
    ],
    [
      'a final step that calls tools',
      MINIMAL.replace(/ {6}- text: Answer one.\n$/, ''),
      'turns[0].steps[0].toolCalls',
      /last step/,
      16,
    ],
    ['a bad duration', MINIMAL.replace('latency: 3s', 'latency: soon'), 'turns[0].steps[0].latency', /duration/, 19],
    [
      'a matched skill that does not exist',
      MINIMAL.replace('  - user: First question', '  - user: First question\n    tail: { skills: [nope] }'),
      'turns[0].tail.skills[0]',
      /no skill named "nope"/,
      14,
    ],
  ])('names file, path, line and problem for %s', (_label, text, path, problem, line) => {
    const error = errorOf(text);
    expect(error.file).toBe('tiny.yaml');
    expect(error.path).toBe(path);
    expect(error.problem).toMatch(problem);
    expect(error.line).toBe(line);
    expect(error.message).toBe(`tiny.yaml:${line}: ${path}: ${error.problem}`);
  });

  it('reports YAML syntax errors with a line', () => {
    const error = errorOf('name: x\n  bad: [unclosed\n');
    expect(error.path).toBe('');
    expect(error.problem).toMatch(/not valid YAML/);
    expect(error.line).not.toBeNull();
  });

  it('reads JSON workloads and names missing files', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'cachet-workload-'));
    const file = join(directory, 'tiny.json');
    writeFileSync(file, JSON.stringify(parseYamlLike()));
    const workload = await loadWorkload(file);
    expect(workload.turns).toHaveLength(1);
    await expect(loadWorkload(join(directory, 'missing.yaml'))).rejects.toThrow(/missing.yaml: \(root\): file not found/);
  });
});

function parseYamlLike() {
  return {
    name: 'tiny-json',
    description: 'JSON works too.',
    provider: 'openai-chat',
    model: 'gpt-5',
    start: '2026-05-14T09:00:00Z',
    global: { persona: 'You help.' },
    turns: [{ user: 'Hi', steps: [{ text: 'Hello.' }] }],
  };
}

describe('generateFiller', () => {
  it('is seeded: same seed, same bytes; another seed, other bytes; size near the request', () => {
    const one = generateFiller({ kind: 'code', tokens: 500, seed: 'a' });
    expect(generateFiller({ kind: 'code', tokens: 500, seed: 'a' })).toBe(one);
    expect(generateFiller({ kind: 'code', tokens: 500, seed: 'b' })).not.toBe(one);
    expect(one.length).toBeGreaterThan(1500);
    expect(one.length).toBeLessThan(2000);
  });
});

describe('workload format (issue 10 §4)', () => {
  const withTurns = (turns: string, extra = '') => `name: format
description: Format features.
provider: openai-responses
model: gpt-5
start: 2026-05-14T09:00:00Z
global:
  persona: You help.
  tools:
    - name: lookup
      description: Look something up.
      inputSchema: { type: object }
toolLibrary:
  - name: crm_search
    description: Search the CRM.
    inputSchema: { type: object }
    guidance: Use crm_search for customer questions.
    deferLoading: true
${extra}turns:
${turns}`;

  it('switches models, sets params, connects tools and carries reasoning items at a turn', () => {
    const workload = parseWorkload(
      withTurns(`  - user: First
    steps:
      - reasoning: { summary: Looking it up., encryptedTokens: 50 }
        toolCalls:
          - { name: lookup, input: {}, result: "" }
      - text: Done.
  - user: ""
    model: gpt-5-mini
    connectTools: [crm_search]
    params: { toolChoice: { tool: crm_search }, effort: low, parallelToolCalls: false, retention: 24h, thinking: adaptive }
    steps:
      - toolCalls:
          - { name: crm_search, input: {}, result: found }
      - text: Found.
`),
      'format.yaml',
    );
    const [first, second] = workload.turns;
    expect(first?.modelSwitch).toBeNull();
    expect(first?.steps[0]?.reply[0]).toMatchObject({
      type: 'thinking',
      thinking: 'Looking it up.',
      signature: expect.stringMatching(/^openai-reasoning:v1:rs_/),
    });
    expect(first?.steps[0]?.toolResults[0]?.content).toEqual([]);
    expect(second?.modelSwitch).toBe('gpt-5-mini');
    expect(second?.user).toBe('');
    expect(second?.connectedTools.map((tool) => [tool.tool.name, tool.deferLoading])).toEqual([['crm_search', true]]);
    expect(second?.params).toEqual({
      toolChoice: { type: 'tool', name: 'crm_search' },
      effort: 'low',
      parallelToolCalls: false,
      retention: '24h',
      thinking: { type: 'adaptive' },
    });
    expect(workload.warnings).toEqual([]);
  });

  it('names the file and line of a tool connected twice or unknown, and of a tool choice not yet available', () => {
    const twice = errorOf(
      withTurns(`  - user: a
    connectTools: [crm_search]
    steps: [{ text: ok }]
  - user: b
    connectTools: [crm_search]
    steps: [{ text: ok }]
`),
    );
    expect(twice.message).toBe('tiny.yaml:23: turns[1].connectTools[0]: tool "crm_search" is already available');
    const unknown = errorOf(withTurns(`  - user: a\n    connectTools: [nope]\n    steps: [{ text: ok }]\n`));
    expect(unknown.message).toContain('turns[0].connectTools[0]: no tool named "nope" in toolLibrary');
    expect(unknown.line).toBe(20);
    const choice = errorOf(
      withTurns(`  - user: a\n    params: { toolChoice: { tool: crm_search } }\n    steps: [{ text: ok }]\n`),
    );
    expect(choice.message).toContain('turns[0].params.toolChoice.tool: tool "crm_search" is not available at this turn');
  });

  it('warns, with file and line, when after: is set on the first turn or together with at:', () => {
    const workload = parseWorkload(
      withTurns(`  - user: a
    after: 5m
    steps: [{ text: ok }]
  - user: b
    at: +20m
    after: 2m
    steps: [{ text: ok }]
`),
      'gaps.yaml',
    );
    expect(workload.warnings.map((warning) => warning.text)).toEqual([
      'gaps.yaml:20: turns[0].after: `after` is ignored on the first turn (it starts at `start`; use an `idle` entry or `at: +offset` to delay it)',
      'gaps.yaml:24: turns[1].after: `after` is ignored on a turn that sets `at` (the turn starts at `at`)',
    ]);
    expect(workload.turns[1]?.at).toBe(Date.parse('2026-05-14T09:20:00Z'));
  });
});
