import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../model/request.js';
import { assemble } from '../../session/assemble.js';
import type { Session } from '../../session/session.js';
import { tailProvider } from '../../session/tail-provider.js';
import { convertToAnthropic } from './convert-request.js';
import type { AnthropicOptions } from './options.js';
import { fixtureSession } from './test-support/fixtures.js';

/** A conversion that shares nothing with earlier ones: the request's JSON copy has no shared arrays. */
const fresh = (request: CanonicalRequest, options: AnthropicOptions) =>
  convertToAnthropic(JSON.parse(JSON.stringify(request)) as CanonicalRequest, options);

/** A tool call and its result; `details` text blocks before the call make the call message long. */
function toolStep(session: Session, id: string, details = 0): void {
  session.append({
    role: 'assistant',
    content: [
      ...Array.from({ length: details }, (_, index) => ({ type: 'text' as const, text: `Detail ${index}.` })),
      { type: 'tool_use', id, name: 'read_file', input: { path: `${id}.ts` } },
    ],
  });
  session.append({
    role: 'user',
    content: [{ type: 'tool_result', toolUseId: id, content: [{ type: 'text', text: `file ${id}` }] }],
  });
}

describe("a session's converted history kept between requests", () => {
  it('gives every body, warnings and breakpoints of a conversion that shares nothing, and leaves earlier bodies alone', () => {
    const session = fixtureSession();
    const made: Array<{ request: CanonicalRequest; options: AnthropicOptions; body: unknown; json: string; metadata: string }> =
      [];
    const convert = (options: AnthropicOptions) => {
      const request = assemble(session);
      const result = convertToAnthropic(request, options);
      const expected = fresh(request, options);
      expect(JSON.stringify(result.body)).toBe(JSON.stringify(expected.body));
      expect(JSON.stringify(result.metadata)).toBe(JSON.stringify(expected.metadata));
      made.push({
        request,
        options,
        body: result.body,
        json: JSON.stringify(result.body),
        metadata: JSON.stringify(result.metadata),
      });
    };
    for (let turn = 1; turn <= 6; turn++) {
      session.appendUserText(`Question ${turn}: what does module ${turn} export?`);
      convert(turn === 5 ? { padding: 'never', tailPlacement: 'system' } : { padding: 'never' });
      for (let step = 1; step <= 3; step++) {
        // Turn 3's second call comes after 24 text blocks, and its request names turn 2's last entry as the
        // previous one: a lookback guard lands inside the kept history, in another layout than it was kept in.
        toolStep(session, `call_${turn}_${step}`, turn === 3 && step === 2 ? 24 : 0);
        // Another layout before the messages (a padding block here, the tail in the system prompt above) starts the run over.
        const previous = turn === 3 && step === 2 ? { previous: JSON.parse(made[7]?.metadata ?? '{}').cacheState } : {};
        convert(step === 2 ? { padding: 'always', ...previous } : { padding: 'never' });
      }
      // An unsigned thinking block is dropped with a warning on every later request.
      session.append({
        role: 'assistant',
        content: [
          ...(turn === 2 ? [{ type: 'thinking' as const, thinking: 'unsigned reasoning' }] : []),
          { type: 'text', text: `Module ${turn} exports a handler.` },
        ],
      });
      if (turn === 4) session.discoverTools([{ name: 'grep', description: 'Search files.', inputSchema: { type: 'object' } }]);
    }
    session.appendUserText('Thanks.');
    convert({ padding: 'never' });
    expect(made.some((entry) => entry.metadata.includes('lookback-guard'))).toBe(true);
    expect(JSON.parse(made.at(-1)?.metadata ?? '{}').warnings.map((warning: { code: string }) => warning.code)).toContain(
      'thinking-not-sent',
    );
    // An earlier request converted again after later ones: the same body as then.
    const early = made[5] as (typeof made)[number];
    expect(JSON.stringify(convertToAnthropic(early.request, early.options).body)).toBe(early.json);
    expect(made.length).toBe(25);
    for (const entry of made) expect(JSON.stringify(entry.body)).toBe(entry.json);
  });
});

describe('a kept history run when the tokens before the messages change every request', () => {
  // The run's key holds the tokens before the messages; with the tail in the system prompt they change each request,
  // so the run starts over each time. No history marker follows a tail slot, so the bodies are what can go wrong here.
  it('gives every body and its metadata as a conversion that shares nothing', () => {
    let recallWords = 1;
    const session = fixtureSession({
      // The tail goes in the system prompt: same blocks and slots before the messages, more tokens each request.
      tail: [tailProvider('memory-recall', () => `Recall: ${'prefers pnpm and small commits. '.repeat(recallWords)}`)],
    });
    const options: AnthropicOptions = { padding: 'never', tailPlacement: 'system' };
    const bodies: string[] = [];
    for (let turn = 1; turn <= 4; turn++) {
      session.appendUserText(`Question ${turn}: explain module ${turn}.`);
      for (let step = 1; step <= 3; step++) {
        toolStep(session, `call_${turn}_${step}`);
        recallWords = turn * 40 + step * 25;
        const request = assemble(session);
        const result = convertToAnthropic(request, options);
        const expected = fresh(request, options);
        expect(JSON.stringify(result.body)).toBe(JSON.stringify(expected.body));
        expect(JSON.stringify(result.metadata)).toBe(JSON.stringify(expected.metadata));
        bodies.push(JSON.stringify(result.body));
      }
      session.append({ role: 'assistant', content: [{ type: 'text', text: `Module ${turn} exports a handler.` }] });
    }
    expect(new Set(bodies).size).toBe(bodies.length);
  });
});
