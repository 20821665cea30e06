import { describe, expect, it } from 'vitest';
import { loadWorkload, parseWorkload } from '../workloads/load-workload.js';
import { simulateWorkload } from './simulate-workload.js';
import { STRATEGY_NAMES } from './strategy.js';

type Body = {
  model: string;
  cache_control?: unknown;
  tools?: Array<{ cache_control?: unknown }>;
  system?: Array<{ text: string; cache_control?: unknown }>;
  messages: Array<{ role: string; content: string | Array<{ type: string; text?: string; cache_control?: unknown }> }>;
};

const scripted = await loadWorkload('scripted-coding-agent');

function bodiesOf(strategy: 'pi' | 'ai-sdk' | 'langchain'): Body[] {
  const bodies: Body[] = [];
  simulateWorkload(scripted, { strategy, onBody: (body) => bodies.push(body as Body) });
  return bodies;
}

/** Where the markers are: `tools[-1]`, `system[i]`, `messages[i]`, `request`. */
function markers(body: Body): string[] {
  const found: string[] = [];
  if (body.cache_control) found.push('request');
  if (body.tools?.at(-1)?.cache_control) found.push('tools[-1]');
  body.system?.forEach((block, index) => {
    if (block.cache_control) found.push(`system[${index}]`);
  });
  body.messages.forEach((message, index) => {
    if (Array.isArray(message.content) && message.content.some((block) => block.cache_control)) found.push(`messages[${index}]`);
  });
  return found;
}

describe('peer strategies (Anthropic bodies as each library builds them)', () => {
  it('pi: last tool, system and last user message; the turn context rides in the user message; plain strings when unmarked', () => {
    const bodies = bodiesOf('pi');
    expect(markers(bodies[0]!)).toEqual(['tools[-1]', 'system[0]', 'messages[0]']);
    const third = bodies[2]!;
    expect(markers(third)).toEqual(['tools[-1]', 'system[0]', `messages[${third.messages.length - 1}]`]);
    expect(third.messages[0]!.content).toEqual(expect.stringContaining('[current time] 2026-11-20T09:00:00Z'));
    expect(third.messages[0]!.content).toEqual(expect.stringContaining('Recalled from earlier sessions'));
    expect(third.system).toHaveLength(1);
  });

  it('ai-sdk: markers accumulate within a turn and past four the newest is dropped; they reset at the next turn', () => {
    const bodies = bodiesOf('ai-sdk');
    const counts = bodies.map((body) => markers(body).length);
    // Turn 1 has three steps: system + 1, + 2, + 3 markers.
    expect(counts.slice(0, 3)).toEqual([2, 3, 4]);
    expect(counts[3]).toBe(2);
    expect(counts.every((count) => count <= 4)).toBe(true);
    expect(bodies[0]!.system).toHaveLength(2);
    expect(bodies[0]!.system?.[1]?.text).toContain('[current time]');
  });

  it('langchain: top-level automatic caching from three messages (system counted), clock and memory in the one system prompt', () => {
    const bodies = bodiesOf('langchain');
    expect(markers(bodies[0]!)).toEqual([]);
    expect(markers(bodies[1]!)).toEqual(['request']);
    expect(bodies[1]!.system).toHaveLength(1);
    expect(bodies[1]!.system?.[0]?.text).toContain('[current time] 2026-11-20T09:00:05Z');
  });

  it('costs what the issue measured: pi cheaper than markers, ai-sdk and langchain on the scripted agent', () => {
    const cost = Object.fromEntries(
      (['markers', 'pi', 'ai-sdk', 'langchain'] as const).map((strategy) => [
        strategy,
        simulateWorkload(scripted, { strategy }).totals.costUsd,
      ]),
    );
    expect(cost.pi).toBeLessThan(cost.markers!);
    expect(cost.pi).toBeLessThan(cost['ai-sdk']!);
    expect(cost.pi).toBeLessThan(cost.langchain!);
  });
});

describe('workload format features run through every strategy and provider', () => {
  const workload = parseWorkload(
    `name: format-run
description: model switch, connected tools, params, reasoning, empty input and output
provider: anthropic
model: claude-sonnet-5
start: 2026-05-14T09:00:00Z
global:
  persona: You help.
  tools:
    - { name: lookup, description: Look something up., inputSchema: { type: object } }
toolLibrary:
  - { name: crm_search, description: Search the CRM., inputSchema: { type: object }, guidance: Use it for customers., deferLoading: true }
turns:
  - user: ""
    steps:
      - reasoning: { summary: Looking., encryptedTokens: 40 }
        toolCalls: [{ name: lookup, input: {}, result: "" }]
      - text: Done.
  - user: Next
    model: claude-haiku-4-5
    connectTools: [crm_search]
    params: { toolChoice: any, parallelToolCalls: false }
    steps:
      - toolCalls: [{ name: crm_search, input: {}, result: found }]
      - text: Found.
`,
    'format-run.yaml',
  );

  it.each(['anthropic', 'openai-chat', 'openai-responses', 'openrouter', 'openai-compatible'] as const)('on %s', (provider) => {
    for (const strategy of STRATEGY_NAMES) {
      const bodies: Body[] = [];
      const result = simulateWorkload(workload, { provider, strategy, onBody: (body) => bodies.push(body as Body) });
      expect(result.requests).toHaveLength(4);
      expect(result.totals.costUsd).toBeGreaterThanOrEqual((result.totals.oracleCostUsd ?? 0) - 1e-12);
      if (provider === 'anthropic') {
        expect(bodies.map((body) => body.model)).toEqual([
          'claude-sonnet-5',
          'claude-sonnet-5',
          'claude-haiku-4-5',
          'claude-haiku-4-5',
        ]);
        expect(JSON.stringify(bodies[2])).toContain('crm_search');
      }
    }
  });
});
