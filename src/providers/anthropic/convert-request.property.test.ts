import type { ContentBlockParam, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UserContentBlock } from '../../model/content.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { assemble } from '../../session/assemble.js';
import type { TailProvider } from '../../session/tail-provider.js';
import { convertToAnthropic } from './convert-request.js';
import type { AnthropicOptions } from './options.js';
import { fixtureSession, PNG_1X1 } from './test-support/fixtures.js';
import { appendToolLoop } from './test-support/tool-loop-session.js';
import { validateAnthropicBreakpoints } from './validate-breakpoints.js';

/** One agent step: optional thinking, some text, 0–12 parallel tool calls (answered next). */
const stepArbitrary = fc.record({
  thinking: fc.constantFrom('none', 'signed', 'signed+redacted'),
  text: fc.option(fc.string({ minLength: 1, maxLength: 30 }), { nil: undefined }),
  calls: fc.integer({ min: 0, max: 12 }),
});

const turnArbitrary = fc.record({
  userText: fc.string({ minLength: 1, maxLength: 40 }),
  image: fc.boolean(),
  steps: fc.array(stepArbitrary, { minLength: 0, maxLength: 3 }),
});

const scenarioArbitrary = fc.record({
  model: fc.constantFrom('claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-6', 'unknown-model'),
  globalText: fc.string({ minLength: 1, maxLength: 2000 }),
  sessionText: fc.option(fc.string({ minLength: 1, maxLength: 6000 }), { nil: undefined }),
  contextPair: fc.boolean(),
  turns: fc.array(turnArbitrary, { minLength: 1, maxLength: 4 }),
  endInToolLoop: fc.boolean(),
  tail: fc.array(fc.record({ text: fc.string({ maxLength: 20 }), before: fc.boolean() }), { maxLength: 3 }),
  options: fc.record({
    breakpoints: fc.constantFrom('plan', 'automatic', 'none'),
    tailPlacement: fc.constantFrom('final-user-message', 'system'),
    padding: fc.constantFrom('auto', 'always', 'never'),
    global: fc.constantFrom('5m', '1h'),
    session: fc.constantFrom('5m', '1h'),
    history: fc.constantFrom('5m', '1h'),
    previous: fc.constantFrom('infer', 'none'),
  }),
});

type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never;

function build(scenario: Scenario) {
  let version = 0;
  const tail: TailProvider[] = scenario.tail.map((item) => ({
    kind: 'custom',
    position: item.before ? 'before-user-text' : 'end',
    render: () => `${item.text}#${version}`,
  }));
  const session = fixtureSession({
    model: scenario.model,
    tail,
    globalSystem: [{ label: 'persona', text: scenario.globalText }],
    sessionStatic: {
      system: scenario.sessionText ? [{ label: 'project', text: scenario.sessionText }] : [],
      messages: scenario.contextPair
        ? [
            { role: 'user', content: [{ type: 'text', text: '[CONTEXT] memory' }] },
            { role: 'assistant', content: [{ type: 'text', text: 'Noted.' }] },
          ]
        : [],
    },
  });
  appendToolLoop(
    session,
    scenario.turns.map((turn) => {
      const image: UserContentBlock[] = turn.image
        ? [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG_1X1 } }]
        : [];
      return { user: [...image, { type: 'text', text: turn.userText }], steps: turn.steps };
    }),
    {
      endInToolLoop: scenario.endInToolLoop,
      answer: { thinking: 'none', text: 'ok', calls: 0 },
      reasoning: (step, id) => [
        ...(step.thinking === 'none' ? [] : [{ type: 'thinking' as const, thinking: `think ${id}`, signature: `sig-${id}` }]),
        ...(step.thinking === 'signed+redacted' ? [{ type: 'redacted_thinking' as const, data: `redacted-${id}` }] : []),
      ],
      toolInput: (id) => ({ path: `f${id}`, z: 1, a: [id] }),
    },
  );
  const options: AnthropicOptions = {
    breakpoints: scenario.options.breakpoints,
    tailPlacement: scenario.options.tailPlacement,
    padding: scenario.options.padding,
    ttl: { global: scenario.options.global, session: scenario.options.session, history: scenario.options.history },
    previous: scenario.options.previous === 'none' ? null : undefined,
  };
  return { session, options, bumpTail: () => (version += 1) };
}

function blocksOf(body: MessageCreateParamsNonStreaming): Array<{ role: string; block: ContentBlockParam }> {
  return body.messages.flatMap((message) =>
    typeof message.content === 'string' ? [] : message.content.map((block) => ({ role: message.role, block })),
  );
}

describe('convertToAnthropic properties (random valid sessions)', () => {
  it('at most 4 breakpoints, none on thinking or empty blocks, valid TTL order, valid tool pairing, byte-identical twice', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { session, options, bumpTail } = build(scenario);
        const first = convertToAnthropic(assemble(session), options);
        const second = convertToAnthropic(assemble(session), options);
        expect(JSON.stringify(second.body)).toBe(JSON.stringify(first.body));

        const body = first.body;
        expect(validateAnthropicBreakpoints(body)).toEqual([]);
        const markers = first.metadata.breakpoints.length;
        expect(markers).toBeLessThanOrEqual(4);
        const serialized = JSON.stringify(body);
        expect(serialized.split('"cache_control"').length - 1).toBe(markers);

        for (const { block } of blocksOf(body)) {
          if (block.type === 'thinking' || block.type === 'redacted_thinking') expect('cache_control' in block).toBe(false);
          if (block.type === 'text') expect(block.text === '' && 'cache_control' in block).toBe(false);
        }

        // Tool pairing: every tool_use is answered first thing in the next user message, in full.
        body.messages.forEach((message, index) => {
          if (typeof message.content === 'string' || message.role !== 'assistant') return;
          const ids = message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
          if (ids.length === 0) return;
          const next = body.messages[index + 1];
          expect(next?.role).toBe('user');
          const content = typeof next?.content === 'string' ? [] : (next?.content ?? []);
          const leading = content.slice(0, ids.length).map((block) => (block.type === 'tool_result' ? block.tool_use_id : null));
          expect(leading).toEqual(ids);
        });

        // Thinking blocks arrive exactly as the session holds them.
        const sent = blocksOf(body).flatMap(({ block }) =>
          block.type === 'thinking' || block.type === 'redacted_thinking' ? [block] : [],
        );
        const held: unknown[] = [];
        for (const message of assemble(session).messages) {
          for (const block of message.content) {
            if (block.type === 'thinking') held.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
            if (block.type === 'redacted_thinking') held.push({ type: 'redacted_thinking', data: block.data });
          }
        }
        expect(sent).toEqual(held);

        // Everything up to each explicit breakpoint is persisted content: after a reply, a new
        // user message and a changed tail, the next request starts with the same blocks.
        bumpTail();
        session.append({ role: 'assistant', content: [{ type: 'text', text: 'reply' }] });
        session.appendUserText('more');
        const next = convertToAnthropic(assemble(session), { ...options, previous: first.metadata.cacheState }).body;
        const before = flatten(body);
        const after = flatten(next);
        for (const breakpoint of first.metadata.breakpoints) {
          if (breakpoint.reason === 'automatic') continue;
          expect(breakpoint.zone).not.toBe('tail');
          expect(after.slice(0, breakpoint.position + 1)).toEqual(before.slice(0, breakpoint.position + 1));
        }
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});

/** Tools, system blocks and message blocks (with their role) in wire order, markers removed. */
function flatten(body: MessageCreateParamsNonStreaming): string[] {
  const strip = (value: unknown) => JSON.stringify(value, (key, entry: unknown) => (key === 'cache_control' ? undefined : entry));
  return [
    ...(body.tools ?? []).map(strip),
    ...(Array.isArray(body.system) ? body.system.map(strip) : []),
    ...blocksOf(body).map(({ role, block }) => `${role}:${strip(block)}`),
  ];
}
