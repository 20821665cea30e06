import { describe, expect, it } from 'vitest';
import { convertToAnthropic } from '../anthropic/convert-request.js';
import { fixtureSession, parallelReadStep } from '../openai-chat/test-support/fixtures.js';
import { convertToOpenRouter } from './convert-request.js';
import { OPENROUTER_ROUTES } from './models.js';

/** Two consecutive requests of one session; the second adds 24 positions after the first's history end. */
function twoRequests(model: string) {
  const fixture = fixtureSession(model);
  fixture.session.appendUserText('Read everything.');
  for (const message of parallelReadStep(1, 1)) fixture.session.append(message);
  const first = fixture.request();
  for (const message of parallelReadStep(2, 12)) fixture.session.append(message);
  const second = fixture.request();
  return { first, second };
}

describe('OpenRouter Anthropic routes: the Anthropic breakpoint plan', () => {
  it('places a lookback guard on the previous entry when the new history end is 20 or more positions past it', () => {
    const { first, second } = twoRequests('anthropic/claude-sonnet-4.5');
    const previous = convertToOpenRouter(first).metadata;
    const next = convertToOpenRouter(second, { previous: previous.cacheState }).metadata;
    const guard = next.breakpoints.find((breakpoint) => breakpoint.reason === 'lookback-guard');
    const previousHistory = previous.breakpoints.find((breakpoint) => breakpoint.reason === 'history');
    expect(previousHistory?.path).toBe('messages[2].content[0].content[0]');
    expect(guard?.path).toBe(previousHistory?.path);
    // Without state the previous request is inferred to have ended before the last assistant message.
    const inferred = convertToOpenRouter(second).metadata;
    expect(inferred.breakpoints.map((breakpoint) => [breakpoint.path, breakpoint.reason])).toEqual(
      next.breakpoints.map((breakpoint) => [breakpoint.path, breakpoint.reason]),
    );
    // The guard really is a marker on the wire part, and the tail still carries none.
    const { body } = convertToOpenRouter(second, { previous: previous.cacheState });
    const guarded = body.messages[3];
    expect(guarded).toMatchObject({ role: 'tool', content: [{ cache_control: { type: 'ephemeral' } }] });
    expect(JSON.stringify(body.messages.at(-1))).not.toContain('cache_control');
  });

  it('plans the same breakpoints as the Anthropic adapter for the same canonical request', () => {
    const { first, second } = twoRequests('anthropic/claude-sonnet-4.5');
    const reasons = (breakpoints: readonly { reason: string }[]) => breakpoints.map((breakpoint) => breakpoint.reason);
    const anthropicFirst = convertToAnthropic({ ...first, model: 'claude-sonnet-4-5' });
    const anthropicSecond = convertToAnthropic(
      { ...second, model: 'claude-sonnet-4-5' },
      { previous: anthropicFirst.metadata.cacheState },
    );
    const routerFirst = convertToOpenRouter(first);
    const routerSecond = convertToOpenRouter(second, { previous: routerFirst.metadata.cacheState });
    expect(reasons(routerFirst.metadata.breakpoints)).toEqual(reasons(anthropicFirst.metadata.breakpoints));
    expect(reasons(routerSecond.metadata.breakpoints)).toEqual(reasons(anthropicSecond.metadata.breakpoints));
    expect(reasons(routerSecond.metadata.breakpoints)).toContain('lookback-guard');
  });

  it('stays within the route’s marker limit, dropping the least important with a warning', () => {
    const { first, second } = twoRequests('anthropic/claude-sonnet-4.5');
    const anthropicRow = OPENROUTER_ROUTES.find((route) => route.family === 'anthropic')!;
    const routes = [{ ...anthropicRow, maxMarkers: 2 }];
    const previous = convertToOpenRouter(first, { routes }).metadata.cacheState;
    const { body, metadata } = convertToOpenRouter(second, { routes, previous });
    expect(metadata.breakpoints.map((breakpoint) => breakpoint.reason)).toEqual(['lookback-guard', 'history']);
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(2);
    expect(metadata.warnings.some((warning) => warning.message.includes('global-static breakpoint dropped'))).toBe(true);
  });

  it('takes caller markers first and refuses paths that name nothing in the request', () => {
    const { second } = twoRequests('anthropic/claude-sonnet-4.5');
    const { metadata } = convertToOpenRouter(second, { markers: [{ path: 'system[2]' }] });
    expect(metadata.breakpoints.find((breakpoint) => breakpoint.path === 'system[2]')?.reason).toBe('caller');
    expect(() => convertToOpenRouter(second, { markers: [{ path: 'messages[99].content[0]' }] })).toThrow(/markers\[0\]/);
  });

  it('other routes get no plan and no cache state', () => {
    const { metadata } = convertToOpenRouter(twoRequests('openai/gpt-5.2').second);
    expect([metadata.breakpoints, metadata.cacheState]).toEqual([[], null]);
  });
});
