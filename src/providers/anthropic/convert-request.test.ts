import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../model/errors.js';
import { assemble } from '../../session/assemble.js';
import { anthropicEstimator } from '../../tokens/anthropic-estimator.js';
import { convertToAnthropic } from './convert-request.js';
import {
  fixtureSession,
  imagesAndDocuments,
  parallelReadStep,
  parallelToolLoop,
  plainChat,
  sessionStaticPair,
  thinkingToolLoop,
  wideToolStep,
} from './test-support/fixtures.js';
import { markedPaths, summarise } from './test-support/summarise.js';

const brief = (result: ReturnType<typeof convertToAnthropic>) =>
  result.metadata.breakpoints.map((breakpoint) => `${breakpoint.reason} ${breakpoint.path} ${breakpoint.ttl}`);

describe('convertToAnthropic wire bodies', () => {
  it('plain chat: tail inside the final user message, matched skill before the user text', async () => {
    const result = convertToAnthropic(plainChat(), { padding: 'never' });
    await expect(JSON.stringify(result.body, null, 1)).toMatchFileSnapshot(
      './__snapshots__/convert-request.plain-chat-tail-inside-the-final-user-message-matched-skill.json',
    );
    expect(brief(result)).toMatchInlineSnapshot(`
      [
        "global-static system[0] 5m",
        "history messages[1].content[0] 5m",
      ]
    `);
    expect(result.metadata.warnings).toEqual([]);
  });

  it('tool loop with parallel calls: tail after the tool_result blocks, history breakpoint on the last result', async () => {
    const result = convertToAnthropic(parallelToolLoop(), { padding: 'never' });
    await expect(JSON.stringify(result.body.messages, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.tool-loop-with-parallel-calls-tail-after-the-tool-result-blo.json',
    );
    expect(brief(result)).toMatchInlineSnapshot(`
      [
        "global-static system[0] 5m",
        "history messages[2].content[1] 5m",
      ]
    `);
  });

  it('thinking: signed and redacted blocks pass through exactly and never carry a marker', async () => {
    const request = thinkingToolLoop();
    const result = convertToAnthropic(request, { padding: 'never' });
    expect(result.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    await expect(JSON.stringify(result.body.messages[1], null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.thinking-signed-and-redacted-blocks-pass-through-exactly-and.json',
    );
    const original = request.messages[1]?.content[0];
    expect(original?.type === 'thinking' && original.signature).toBe('sig-EqQBCkgIARABGAIiQ');
    expect(markedPaths(result.body)).not.toContain('messages[1].content[0]');
    expect(markedPaths(result.body)).not.toContain('messages[1].content[1]');
  });

  it('images and documents map to their source types', async () => {
    const result = convertToAnthropic(imagesAndDocuments(), { padding: 'never' });
    await expect(JSON.stringify(result.body.messages, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.images-and-documents-map-to-their-source-types.json',
    );
  });

  it('session static pair: its own breakpoint when it is large enough', async () => {
    const memory = 'Working memory: the build uses tsc; tests use vitest and run from the package root. '.repeat(60);
    const request = sessionStaticPair({
      sessionStatic: {
        system: [{ label: 'project', text: 'Project: demo.' }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: `[CONTEXT]\n${memory}` }] },
          { role: 'assistant', content: [{ type: 'text', text: 'Understood.' }] },
        ],
      },
    });
    const result = convertToAnthropic(request, { padding: 'never' });
    await expect(JSON.stringify(summarise(result.body.messages), null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.session-static-pair-its-own-breakpoint-when-it-is-large-enou.json',
    );
    expect(brief(result)).toMatchInlineSnapshot(`
      [
        "global-static system[0] 5m",
        "session-static messages[1].content[0] 5m",
      ]
    `);
    // Once history exists before the tail, a small session zone does not earn a slot of its own.
    const small = fixtureSession({ sessionStatic: { messages: sessionStaticPair().messages.slice(0, 2) } });
    small.appendUserText('Run the tests.');
    small.append({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
    small.appendUserText('Thanks.');
    expect(brief(convertToAnthropic(assemble(small), { padding: 'never' }))).toEqual([
      'global-static system[0] 5m',
      'history messages[3].content[0] 5m',
    ]);
  });

  it('1h TTL on the global zone; a later 1h zone raises earlier ones, with a warning', async () => {
    const global = convertToAnthropic(plainChat(), { padding: 'never', ttl: { global: '1h' } });
    await expect(JSON.stringify(summarise(global.body.system), null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.1h-ttl-on-the-global-zone-a-later-1h-zone-raises-earlier-one.json',
    );
    expect(brief(global)).toMatchInlineSnapshot(`
      [
        "global-static system[0] 1h",
        "history messages[1].content[0] 5m",
      ]
    `);
    const history = convertToAnthropic(plainChat(), { padding: 'never', ttl: { history: '1h' } });
    expect(brief(history)).toMatchInlineSnapshot(`
      [
        "global-static system[0] 1h",
        "history messages[1].content[0] 1h",
      ]
    `);
    expect(history.metadata.warnings).toMatchInlineSnapshot(`
      [
        {
          "code": "ttl-raised",
          "message": "system[0]: ttl raised to 1h because a later breakpoint uses 1h (1h entries must precede 5m ones)",
          "path": "system[0]",
        },
      ]
    `);
  });

  it('tail as a second system segment (seed spec §2): no history breakpoint while the tail is present', async () => {
    const result = convertToAnthropic(plainChat(), { padding: 'never', tailPlacement: 'system' });
    await expect(JSON.stringify(result.body.system, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.tail-as-a-second-system-segment-seed-spec-2-no-history-break.json',
    );
    expect(result.body.messages.at(-1)).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "text": "And the tests?",
            "type": "text",
          },
        ],
        "role": "user",
      }
    `);
    expect(brief(result)).toMatchInlineSnapshot(`
      [
        "global-static system[0] 5m",
        "session-static system[1] 5m",
      ]
    `);
  });

  it('automatic mode: one top-level cache_control and a warning when the tail is last', () => {
    const result = convertToAnthropic(plainChat(), { padding: 'never', breakpoints: 'automatic' });
    expect(result.body.cache_control).toEqual({ type: 'ephemeral' });
    expect(markedPaths(result.body)).toEqual(['cache_control']);
    expect(result.metadata.warnings).toMatchInlineSnapshot(`
      [
        {
          "code": "tail-breakpoint",
          "message": "automatic caching: the breakpoint lands on the turn tail, so the next request cannot read the entry it writes",
        },
      ]
    `);
    const noTail = fixtureSession({ tail: [] });
    noTail.appendUserText('hello');
    const clean = convertToAnthropic(assemble(noTail), { padding: 'never', breakpoints: 'automatic' });
    expect(clean.metadata.warnings).toEqual([]);
  });

  it('none mode: no markers at all', () => {
    const result = convertToAnthropic(plainChat(), { breakpoints: 'none' });
    expect(markedPaths(result.body)).toEqual([]);
    expect(result.metadata.padding?.applied).toBe(false);
  });

  it('tool schemas and tool inputs are sent in canonical key order', () => {
    const result = convertToAnthropic(parallelToolLoop(), { padding: 'never' });
    expect(JSON.stringify(result.body.tools?.[1])).toBe(
      '{"name":"grep","description":"Search files for a pattern","input_schema":{"properties":{"glob":{"type":"string"},"pattern":{"type":"string"}},"type":"object"}}',
    );
    const assistant = result.body.messages[1];
    const call = Array.isArray(assistant?.content) ? assistant.content[2] : undefined;
    expect(JSON.stringify(call)).toBe('{"type":"tool_use","id":"call_b","name":"grep","input":{"glob":"*.ts","pattern":"TODO"}}');
  });

  it('is pure: same bytes twice, input untouched', () => {
    const request = thinkingToolLoop();
    const before = JSON.stringify(request);
    const first = JSON.stringify(convertToAnthropic(request).body);
    const second = JSON.stringify(convertToAnthropic(request).body);
    expect(second).toBe(first);
    expect(JSON.stringify(request)).toBe(before);
  });

  it('drops unsigned thinking (from another provider) with a warning', () => {
    const request = thinkingToolLoop();
    const assistant = request.messages[1];
    if (assistant?.role !== 'assistant') throw new Error('fixture changed');
    const unsigned = {
      ...request,
      messages: [
        request.messages[0]!,
        { role: 'assistant' as const, content: [{ type: 'thinking' as const, thinking: 'x' }, ...assistant.content.slice(1)] },
        request.messages[2]!,
      ],
    };
    const result = convertToAnthropic(unsigned, { padding: 'never' });
    expect(result.metadata.warnings).toContainEqual({
      code: 'thinking-not-sent',
      path: 'messages[1].content[0]',
      message: 'messages[1].content[0]: unsigned thinking block dropped (the Messages API requires a signature)',
    });
    expect(JSON.stringify(result.body.messages[1])).not.toContain('"thinking":"x"');
  });

  it('rejects image media types the API does not accept, naming the path', () => {
    const session = fixtureSession();
    session.append({
      role: 'user',
      content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/tiff', data: 'AAAA' } }],
    });
    expect(() => convertToAnthropic(assemble(session))).toThrowError(ValidationError);
    expect(() => convertToAnthropic(assemble(session))).toThrowError(/messages\[0\]\.content\[0\]\.source\.mediaType/);
  });
});

describe('padding in wire bodies', () => {
  it('pads the global zone after its system segments; the global breakpoint moves to the last padding block', async () => {
    const result = convertToAnthropic(plainChat({ model: 'claude-haiku-4-5' }), {
      padding: 'always',
      skills: [{ name: 'release-notes', body: 'Collect merged changes since the last tag and group them by area.' }],
    });
    await expect(JSON.stringify(summarise(result.body.system, 60), null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.pads-the-global-zone-after-its-system-segments-the-global-br.json',
    );
    await expect(JSON.stringify(result.metadata.padding, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.pads-the-global-zone-after-its-system-segments-the-global-br-2.json',
    );
    expect(brief(result)).toMatchInlineSnapshot(`
      [
        "global-static padding[1] 5m",
        "history messages[1].content[0] 5m",
      ]
    `);
  });

  it('auto: records why it did not pad a small prefix that does not grow', () => {
    const result = convertToAnthropic(plainChat({ model: 'claude-haiku-4-5' }), { expectedGrowthTokens: 0 });
    expect(result.metadata.padding).toMatchInlineSnapshot(`
      {
        "applied": false,
        "floorTokens": 4096,
        "mode": "auto",
        "paddedSkills": [],
        "prefixTokensAfter": 66,
        "prefixTokensBefore": 66,
        "reason": "padding to 4593 tokens would cost 9,875 vs 660 input-token equivalents over 10 requests",
      }
    `);
    expect(result.body.system).toHaveLength(2);
  });
});

describe('token estimates', () => {
  it('uses the counter it is given for breakpoint and padding estimates', () => {
    const request = plainChat({ model: 'claude-haiku-4-5' });
    const fallback = convertToAnthropic(request, { expectedGrowthTokens: 0 });
    const estimated = convertToAnthropic(request, { tokenCounter: anthropicEstimator(), expectedGrowthTokens: 0 });
    expect(JSON.stringify(estimated.body)).toBe(JSON.stringify(fallback.body));
    expect(estimated.metadata.padding?.prefixTokensBefore).not.toBe(fallback.metadata.padding?.prefixTokensBefore);
    expect(estimated.metadata.breakpoints.map((breakpoint) => breakpoint.estimatedPrefixTokens)).not.toEqual(
      fallback.metadata.breakpoints.map((breakpoint) => breakpoint.estimatedPrefixTokens),
    );
  });
});

describe('lookback guard', () => {
  /** Request A after a one-call step, then request B after a step with `calls` parallel calls. */
  function twoSteps(calls: number) {
    const session = fixtureSession({ tail: [] });
    session.appendUserText('Read one file, then every file.');
    for (const message of parallelReadStep(1, 1)) session.append(message);
    const first = convertToAnthropic(assemble(session), { padding: 'never', previous: null });
    for (const message of parallelReadStep(2, calls)) session.append(message);
    return { session, first };
  }

  it('adds a guard at the previous entry when the step adds 20 or more positions', () => {
    const { session, first } = twoSteps(12);
    expect(first.metadata.cacheState.entries.map((entry) => entry.path)).toEqual(['messages[2].content[0]']);
    const second = convertToAnthropic(assemble(session), { padding: 'never', previous: first.metadata.cacheState });
    expect(brief(second)).toMatchInlineSnapshot(`
      [
        "global-static system[0] 5m",
        "lookback-guard messages[2].content[0] 5m",
        "history messages[4].content[11] 5m",
      ]
    `);
    const inferred = convertToAnthropic(assemble(session), { padding: 'never' });
    expect(brief(inferred)).toEqual(brief(second));
  });

  it('adds no guard when the previous entry is within reach', () => {
    const { session, first } = twoSteps(9);
    const second = convertToAnthropic(assemble(session), { padding: 'never', previous: first.metadata.cacheState });
    expect(second.metadata.breakpoints.map((breakpoint) => breakpoint.reason)).not.toContain('lookback-guard');
  });

  it('ignores previous entries whose prefix no longer matches (history rewritten)', () => {
    const { session, first } = twoSteps(12);
    const stale = { entries: first.metadata.cacheState.entries.map((entry) => ({ ...entry, prefixHash: 'rewritten' })) };
    const second = convertToAnthropic(assemble(session), { padding: 'never', previous: stale });
    expect(second.metadata.breakpoints.map((breakpoint) => breakpoint.reason)).not.toContain('lookback-guard');
  });

  it('keeps at most four breakpoints with caller markers and warns about the rest', async () => {
    const request = wideToolStep(3);
    const result = convertToAnthropic(request, {
      padding: 'never',
      markers: [
        { path: 'tools[0]' },
        { path: 'system[0]' },
        { path: 'messages[0].content[0]' },
        { path: 'messages[1].content[0]' },
        { path: 'messages[1].content[1]', ttl: '1h' },
      ],
    });
    expect(markedPaths(result.body).length).toBeLessThanOrEqual(4);
    expect(brief(result)).toMatchInlineSnapshot(`
      [
        "caller tools[0] 5m",
        "caller system[0] 5m",
        "caller messages[0].content[0] 5m",
        "caller messages[1].content[0] 5m",
      ]
    `);
    await expect(JSON.stringify(result.metadata.warnings, null, 2)).toMatchFileSnapshot(
      './__snapshots__/convert-request.keeps-at-most-four-breakpoints-with-caller-markers-and-warns.json',
    );
  });

  it('refuses unknown option values, naming the option', () => {
    expect(() => convertToAnthropic(plainChat(), { breakpoints: 'auto' as never })).toThrowError(/options\.breakpoints/);
    expect(() => convertToAnthropic(plainChat(), { tailPlacement: 'user' as never })).toThrowError(/options\.tailPlacement/);
  });

  it('refuses a marker path that names no block', () => {
    expect(() => convertToAnthropic(plainChat(), { markers: [{ path: 'messages[9].content[0]' }] })).toThrowError(
      /options\.markers\[0\]\.path/,
    );
  });
});

describe('diagnostics option', () => {
  it('asks for the server cache-miss reason only when told, with the previous response id or null', () => {
    expect('diagnostics' in convertToAnthropic(plainChat(), { padding: 'never' }).body).toBe(false);
    const first = convertToAnthropic(plainChat(), { padding: 'never', diagnostics: { previousMessageId: null } }).body;
    expect(first.diagnostics).toEqual({ previous_message_id: null });
    const next = convertToAnthropic(plainChat(), { padding: 'never', diagnostics: { previousMessageId: 'msg_01' } });
    expect(next.body.diagnostics).toEqual({ previous_message_id: 'msg_01' });
    // The field shapes no prefix: the same breakpoints either way.
    expect(brief(next)).toEqual(brief(convertToAnthropic(plainChat(), { padding: 'never' })));
  });
});
