import { describe, expect, it } from 'vitest';
import type { Zone } from '../../model/request.js';
import { type BreakpointPlanInput, type BreakpointSlot, planBreakpoints } from './place-breakpoints.js';

/** Slots from a compact spec: `g` global, `s` session, `h` history, `t` tail, `!` not cacheable. */
function slots(spec: string[], tokensEach = 100): BreakpointSlot[] {
  let messageIndex = 0;
  return spec.map((entry, position) => {
    const zone = ({ g: 'global', s: 'session', h: 'history', t: 'tail' } as const)[entry[0] as 'g' | 's' | 'h' | 't'] as Zone;
    if (zone === 'history') messageIndex += 1;
    return {
      position,
      path: zone === 'history' ? `messages[${messageIndex}].content[0]` : `${zone}[${position}]`,
      zone,
      messageIndex: zone === 'history' ? messageIndex : null,
      prefixHash: `hash-${position}`,
      cacheable: !entry.endsWith('!'),
      tokens: tokensEach,
    };
  });
}

function input(list: BreakpointSlot[], overrides: Partial<BreakpointPlanInput> = {}): BreakpointPlanInput {
  return {
    slots: list,
    mode: 'plan',
    ttl: { global: '5m', session: '5m', history: '5m' },
    floorTokens: 1024,
    sessionMinTokens: 1024,
    previous: null,
    lastAssistantMessageIndex: null,
    markers: [],
    ...overrides,
  };
}

const summary = (plan: ReturnType<typeof planBreakpoints>) =>
  plan.breakpoints.map((breakpoint) => `${breakpoint.reason}@${breakpoint.position}`);

describe('planBreakpoints', () => {
  it('walks back from thinking blocks to the nearest cacheable block, and never marks the tail', () => {
    const plan = planBreakpoints(input(slots(['g', 'g', 's', 'h', 'h!', 'h!', 't', 't'])));
    expect(summary(plan)).toEqual(['global-static@1', 'history@3']);
  });

  it('guards the previous entry exactly when it is 20 or more positions back', () => {
    const base = ['g', 's', ...Array.from({ length: 40 }, () => 'h')];
    const list = slots(base);
    const entryAt = (position: number) => ({ entries: [{ path: list[position]!.path, prefixHash: `hash-${position}` }] });
    // History ends at 41; an entry at 22 is 19 positions back (reachable), one at 21 is 20 back.
    expect(summary(planBreakpoints(input(list, { previous: entryAt(22) })))).toEqual(['global-static@0', 'history@41']);
    expect(summary(planBreakpoints(input(list, { previous: entryAt(21) })))).toEqual([
      'global-static@0',
      'lookback-guard@21',
      'history@41',
    ]);
  });

  it('on a final request keeps the history breakpoint at the previous entry: it reads, nothing new is written', () => {
    const list = slots(['g', 's', ...Array.from({ length: 12 }, () => 'h'), 't']);
    const entryAt = (position: number) => ({ entries: [{ path: list[position]!.path, prefixHash: `hash-${position}` }] });
    expect(summary(planBreakpoints(input(list, { previous: entryAt(9) })))).toEqual(['global-static@0', 'history@13']);
    const final = planBreakpoints(input(list, { previous: entryAt(9), finalRequest: true }));
    expect(summary(final)).toEqual(['global-static@0', 'history@9']);
    expect(final.cacheState.entries).toEqual(entryAt(9).entries);
    // Without a readable previous entry (none, or history rewritten), the history end as usual.
    expect(summary(planBreakpoints(input(list, { finalRequest: true })))).toEqual(['global-static@0', 'history@13']);
    const rewritten = { entries: [{ path: list[9]!.path, prefixHash: 'hash-old' }] };
    expect(summary(planBreakpoints(input(list, { previous: rewritten, finalRequest: true })))).toEqual([
      'global-static@0',
      'history@13',
    ]);
  });

  it('moves the global breakpoint to the static end when the global entry alone is below the floor', () => {
    // Global tools (2 × 100), tools discovered this session (2 × 100), then global system text
    // (700): the contiguous global run ends at 1 with 200 tokens, which Anthropic never caches.
    const list = slots(['g', 'g', 's', 's', 'g', 'h', 'h']);
    list[4] = { ...list[4]!, tokens: 700 };
    expect(summary(planBreakpoints(input(list)))).toEqual(['session-static@4', 'history@6']);
    // With a session message after the system text, the end of the system level is preferred:
    // images or tool_choice changes invalidate messages, not the system level.
    const withPair = slots(['g', 'g', 's', 's', 'g', 's', 'h', 'h']);
    withPair[4] = { ...withPair[4]!, path: 'system[0]', tokens: 700 };
    expect(summary(planBreakpoints(input(withPair)))).toEqual(['session-static@4', 'history@7']);
    // Below the floor as a whole too: the plan keeps the global end (nothing better exists).
    expect(summary(planBreakpoints(input(slots(['g', 'g', 's', 's', 'g', 'h', 'h']))))).toEqual(['global-static@1', 'history@6']);
  });

  it('gives the session zone its own breakpoint only when it adds enough tokens and clears the floor', () => {
    const list = slots(['g', 's', 's', 'h', 'h'], 600);
    expect(summary(planBreakpoints(input(list)))).toEqual(['global-static@0', 'session-static@2', 'history@4']);
    // Not worth its own entry: the static end then takes the global breakpoint, because the
    // global entry alone (600 tokens) is below the 1,024-token floor and would never be written.
    expect(summary(planBreakpoints(input(list, { sessionMinTokens: 2000 })))).toEqual(['session-static@2', 'history@4']);
  });

  it('automatic mode leaves three slots for caller markers and records the automatic one last', () => {
    const list = slots(['g', 'g', 'h', 'h', 'h', 'h', 't']);
    const plan = planBreakpoints(
      input(list, {
        mode: 'automatic',
        markers: [0, 1, 2, 3].map((position) => ({ path: list[position]!.path })),
      }),
    );
    expect(summary(plan)).toEqual(['caller@0', 'caller@1', 'caller@2', 'automatic@6']);
    expect(plan.warnings[0]?.code).toBe('too-many-breakpoints');
    expect(plan.warnings[0]?.message).toMatch(/dropped, the request already has the maximum of 3/);
    expect(plan.automatic).toEqual({ ttl: '5m' });
  });

  it('raises earlier breakpoints to 1h when a caller marker asks for 1h later', () => {
    const list = slots(['g', 'h', 'h']);
    const plan = planBreakpoints(input(list, { markers: [{ path: list[1]!.path, ttl: '1h' }] }));
    expect(plan.breakpoints.map((breakpoint) => `${breakpoint.reason}:${breakpoint.ttl}`)).toEqual([
      'global-static:1h',
      'caller:1h',
      'history:5m',
    ]);
  });

  it('reports the estimated prefix and whether it clears the floor', () => {
    const plan = planBreakpoints(input(slots(['g', 'h', 'h'], 400)));
    expect(plan.breakpoints.map((breakpoint) => [breakpoint.estimatedPrefixTokens, breakpoint.belowFloor])).toEqual([
      [400, true],
      [1200, false],
    ]);
  });
});
