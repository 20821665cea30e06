import type { Content } from '@google/genai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { assemble } from '../../session/assemble.js';
import type { TailProvider } from '../../session/tail-provider.js';
import { fixtureSession } from '../anthropic/test-support/fixtures.js';
import { appendToolLoop, textTurn } from '../anthropic/test-support/tool-loop-session.js';
import { convertToGemini } from './convert-request.js';

const scenarioArbitrary = fc.record({
  model: fc.constantFrom('gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-3-pro-preview'),
  turns: fc.array(
    fc.record({
      text: fc.string({ minLength: 1, maxLength: 30 }),
      steps: fc.array(fc.record({ calls: fc.integer({ min: 0, max: 4 }), signed: fc.boolean() }), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  endInToolLoop: fc.boolean(),
  tail: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 2 }),
  explicit: fc.boolean(),
});

describe('convertToGemini properties (random valid sessions)', () => {
  it('roles alternate, every call is answered next by name, no cache read sends its own system or tools', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const tail: TailProvider[] = scenario.tail.map((text) => ({ kind: 'custom', position: 'end', render: () => text }));
        const session = fixtureSession({ model: scenario.model, tail });
        appendToolLoop(
          session,
          scenario.turns.map((turn) => textTurn(turn.text, turn.steps)),
          {
            endInToolLoop: scenario.endInToolLoop,
            answer: { calls: 0, signed: false },
            reasoning: (step, id) => (step.signed ? [{ type: 'thinking', thinking: 't', signature: `sig${id}` }] : []),
            resultText: () => 'ok',
          },
        );
        const request = assemble(session);
        const plain = convertToGemini(request);
        const explicit = scenario.explicit
          ? { name: 'cachedContents/x', staticHash: plain.metadata.staticHash, messageCount: 0 }
          : null;
        const { body } = convertToGemini(request, { explicitCache: explicit });
        const contents = body.contents as Content[];
        expect(contents[0]?.role).toBe('user');
        contents.forEach((content, index) => {
          expect(content.parts?.length).toBeGreaterThan(0);
          if (index > 0) expect(content.role).not.toBe(contents[index - 1]?.role);
          const calls = (content.parts ?? []).flatMap((part) => (part.functionCall ? [part.functionCall] : []));
          if (calls.length === 0) return;
          const answers = (contents[index + 1]?.parts ?? []).flatMap((part) =>
            part.functionResponse ? [part.functionResponse] : [],
          );
          expect(answers.map((answer) => [answer.id, answer.name])).toEqual(calls.map((call) => [call.id, call.name]));
        });
        if (explicit) {
          expect(body.config?.cachedContent).toBe('cachedContents/x');
          expect(body.config?.systemInstruction ?? body.config?.tools ?? body.config?.toolConfig).toBeUndefined();
        } else {
          expect(body.config?.cachedContent).toBeUndefined();
        }
        // Signatures are never lost: each one rides on a part of the message that followed its thought.
        const signatures = JSON.stringify(body).match(/"thoughtSignature":"sig\d+"/g) ?? [];
        const signed = request.messages
          .flatMap((message): readonly { type: string }[] => message.content)
          .filter((block) => block.type === 'thinking').length;
        expect(signatures.length).toBe(signed);
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
