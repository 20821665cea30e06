import { describe, expect, it } from 'vitest';
import { planCacheFields } from '../proxy/plan-cache-fields.js';
import { planKeepsClientMarkers } from './planned-lockstep.js';
import { PlannedMarkers } from './planned-markers.js';

/**
 * analyze's `PlannedMarkers` mirrors `planCacheFields`' choice of markers (whether the plan keeps
 * the client's own). With deferred tools (`defer_loading`, not part of the prefix) at the end of
 * the tools array, both must skip them for the tools marker. Reference: `planKeepsClientMarkers`
 * on the plan `planCacheFields` really makes.
 */

type JsonRecord = Record<string, unknown>;
const FIVE = { type: 'ephemeral' };

function request(toolsMarkedAt: number | null): JsonRecord {
  const tools: JsonRecord[] = [
    { name: 'read', input_schema: { type: 'object' } },
    { name: 'mcp__jira__create', input_schema: { type: 'object' }, defer_loading: true },
    { name: 'mcp__jira__search', input_schema: { type: 'object' }, defer_loading: true },
  ];
  if (toolsMarkedAt !== null) tools[toolsMarkedAt] = { ...tools[toolsMarkedAt], cache_control: FIVE };
  return {
    model: 'claude-sonnet-4-5',
    tools,
    system: [{ type: 'text', text: 'Be careful.', cache_control: FIVE }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Find the open bugs.', cache_control: FIVE }] }],
  };
}

describe('PlannedMarkers with deferred tools at the end of the tools array', () => {
  it.each([
    ['the last tool of the prefix marked', 0],
    ['the last deferred tool marked', 2],
    ['a deferred tool in the middle marked', 1],
    ['no tool marked', null],
  ])('%s: says the plan keeps the client markers exactly when it does', (_name, at) => {
    const body = request(at);
    const plan = planCacheFields('anthropic', body, {
      conversationId: 'c',
      previousResponseId: null,
      previousBreakpointPosition: null,
    });
    const kept = new PlannedMarkers().keptPlan(body, null);
    expect(kept !== null).toBe(planKeepsClientMarkers(body, plan));
    if (kept) expect(kept.lastBreakpointPosition).toBe(plan.lastBreakpointPosition);
  });
});
