import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDeepSeekCacheModel } from '../../cache/models/deepseek-cache-model.js';
import { assemble } from '../../session/assemble.js';
import type { TailProvider } from '../../session/tail-provider.js';
import { fixtureSession, TOOLS } from '../anthropic/test-support/fixtures.js';
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
        let id = 0;
        let thinkingToolTurns = 0;
        scenario.turns.forEach((turn, turnIndex) => {
          session.appendUserText(turn.text);
          const steps = turn.steps.length > 0 ? turn.steps : [{ calls: 0, thinks: false }];
          steps.forEach((step, stepIndex) => {
            const last = turnIndex === scenario.turns.length - 1 && stepIndex === steps.length - 1;
            const calls = stepIndex < steps.length - 1 || (last && scenario.endInToolLoop) ? Math.max(1, step.calls) : 0;
            const uses = Array.from({ length: calls }, () => ({
              type: 'tool_use' as const,
              id: `call_${++id}`,
              name: TOOLS[id % TOOLS.length]!.name,
              input: { path: `f${id}` },
            }));
            if (step.thinks && calls > 0) thinkingToolTurns++;
            session.append({
              role: 'assistant',
              content: [
                ...(step.thinks ? [{ type: 'thinking' as const, thinking: `why ${id}`, signature: '' }] : []),
                ...(calls === 0 ? [{ type: 'text' as const, text: 'done' }] : uses),
              ],
            });
            if (calls > 0) {
              session.append({
                role: 'user',
                content: uses.map((use) => ({
                  type: 'tool_result' as const,
                  toolUseId: use.id,
                  content: [{ type: 'text' as const, text: 'ok' }],
                })),
              });
            }
          });
        });
        if (!scenario.endInToolLoop) session.appendUserText('next');
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
      { numRuns: 150, seed: 20261123 },
    );
  });
});
