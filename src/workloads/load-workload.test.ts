import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
  it('ships the six workloads of the issue, in demo order', () => {
    expect(bundledWorkloadNames()).toEqual([
      'skill-varying-chat',
      'cms-agent',
      'python-app-local',
      'coding-agent',
      'long-session-idle-gaps',
      'below-minimum',
    ]);
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
    ['a provider it does not know', MINIMAL.replace('provider: anthropic', 'provider: gemini'), 'provider', /anthropic/, 3],
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
