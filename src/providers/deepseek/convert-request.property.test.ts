import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDeepSeekCacheModel } from '../../cache/models/deepseek-cache-model.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { assemble } from '../../session/assemble.js';
import type { TailProvider } from '../../session/tail-provider.js';
import { fixtureSession } from '../anthropic/test-support/fixtures.js';
import { appendToolLoop, textTurn } from '../anthropic/test-support/tool-loop-session.js';
import type { ChatMessage } from '../openai-chat/chat-messages.js';
import { convertToDeepSeek } from './convert-request.js';

const scenarioArbitrary = fc.record({
  model: fc.constantFrom('deepseek-chat', 'deepseek-reasoner'),
  turns: fc.array(
    fc.record({
      text: fc.string({ minLength: 1, maxLength: 30 }),
      steps: fc.array(fc.record({ calls: fc.integer({ min: 0, max: 3 }), thinks: fc.boolean() }), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  endInToolLoop: fc.boolean(),
  tail: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 2 }),
});

function textOnly(content: ChatMessage['content']): boolean {
  return (
    typeof content === 'string' || content === null || content === undefined || content.every((part) => part.type === 'text')
  );
}

describe('convertToDeepSeek properties (random valid sessions)', () => {
  it('text parts only, one leading system message, every call answered next by id, reasoning on every tool-call turn that had it; the body judges', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const tail: TailProvider[] = scenario.tail.map((text) => ({ kind: 'custom', position: 'end', render: () => text }));
        const session = fixtureSession({ model: scenario.model, tail });
        const appended = appendToolLoop(
          session,
          scenario.turns.map((turn) => textTurn(turn.text, turn.steps)),
          {
            endInToolLoop: scenario.endInToolLoop,
            answer: { calls: 0, thinks: false },
            reasoning: (step, id) => (step.thinks ? [{ type: 'thinking', thinking: `why ${id}`, signature: '' }] : []),
            resultText: () => 'ok',
          },
        );
        const thinkingToolTurns = appended.filter(({ step, calls }) => step.thinks && calls > 0).length;
        const { body } = convertToDeepSeek(assemble(session));
        const messages = body.messages;
        expect(messages.filter((message) => message.role === 'system')).toHaveLength(1);
        expect(messages[0]?.role).toBe('system');
        for (const message of messages) expect(textOnly(message.content)).toBe(true);
        messages.forEach((message, index) => {
          if (message.role !== 'assistant' || !message.tool_calls) return;
          // A tool-call turn without text says so with null (the DeepSeek-V3 template renders calls only then).
          if (!Array.isArray(message.content)) expect(message.content).toBeNull();
          const answers = messages.slice(index + 1, index + 1 + message.tool_calls.length);
          expect(answers.map((answer) => (answer.role === 'tool' ? answer.tool_call_id : answer.role))).toEqual(
            message.tool_calls.map((call) => call.id),
          );
        });
        const withReasoning = messages.filter((message) => message.role === 'assistant' && message.reasoning_content);
        expect(withReasoning).toHaveLength(thinkingToolTurns);
        expect(body.model).toBe(scenario.model);
        // The cache model reads every body the adapter writes.
        const verdict = createDeepSeekCacheModel().judge(body, { at: 0 });
        expect(verdict.inputTokens).toBeGreaterThan(0);
      }),
      { numRuns: propertyRuns(150) },
    );
  });
});
