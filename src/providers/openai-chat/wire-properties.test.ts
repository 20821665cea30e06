import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../model/content.js';
import type { CanonicalRequest, TailItem } from '../../model/request.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { assemble } from '../../session/assemble.js';
import { Session } from '../../session/session.js';
import { convertToOpenAICompatible } from '../openai-compatible/convert-request.js';
import { convertToOpenAIResponses } from '../openai-responses/convert-request.js';
import { convertToOpenRouter } from '../openrouter/convert-request.js';
import type { ChatMessage } from './chat-messages.js';
import { convertToOpenAIChat } from './convert-request.js';
import { FIXTURE_TOOLS } from './test-support/fixtures.js';

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/);
const sentence = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));

interface Script {
  turns: Array<{ user: string; rounds: Array<Array<{ tool: 0 | 1; arg: string; result: string }>>; answer: string | null }>;
  tail: Array<{ text: string; position: TailItem['position'] }>;
  model: number;
}

const script: fc.Arbitrary<Script> = fc.record({
  turns: fc.array(
    fc.record({
      user: sentence,
      rounds: fc.array(
        fc.array(fc.record({ tool: fc.constantFrom(0 as const, 1 as const), arg: word, result: sentence }), {
          minLength: 1,
          maxLength: 4,
        }),
        {
          maxLength: 3,
        },
      ),
      answer: fc.option(sentence, { nil: null }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  tail: fc.array(
    fc.record({
      text: word.map((text) => `TAIL-${text}`),
      position: fc.constantFrom('before-user-text' as const, 'end' as const),
    }),
    {
      maxLength: 3,
    },
  ),
  model: fc.nat(),
});

/** Build the session a script describes; the last turn may stop inside its tool loop. */
function requestFor(value: Script, model: string): CanonicalRequest {
  const session = new Session({
    id: 'prop-session',
    model,
    global: { tools: FIXTURE_TOOLS, system: [{ label: 'persona', text: 'You are a careful coding agent.' }] },
    sessionStatic: { system: [{ label: 'project', text: 'Project: prop.' }] },
    clock: () => 0,
  });
  let callNumber = 0;
  value.turns.forEach((turn, turnIndex) => {
    session.appendUserText(turn.user);
    const last = turnIndex === value.turns.length - 1;
    for (const round of turn.rounds) {
      const ids = round.map(() => `call_${callNumber++}`);
      const call: Message = {
        role: 'assistant',
        content: round.map((entry, index) => ({
          type: 'tool_use',
          id: ids[index]!,
          name: FIXTURE_TOOLS[entry.tool]!.name,
          input: { path: entry.arg },
        })),
      };
      session.append(call);
      session.append({
        role: 'user',
        content: round.map((entry, index) => ({
          type: 'tool_result',
          toolUseId: ids[index]!,
          content: [{ type: 'text', text: entry.result }],
        })),
      });
    }
    if (!last || turn.rounds.length === 0)
      session.append({ role: 'assistant', content: [{ type: 'text', text: turn.answer ?? 'ok' }] });
  });
  if (session.history.at(-1)?.role === 'assistant') session.appendUserText('next');
  return assemble(session, { tail: value.tail.map((item) => ({ kind: 'custom', ...item })) });
}

/** Every assistant tool call is answered right after it, in order, and every tool message answers one. */
function expectChatPairing(messages: readonly ChatMessage[]): void {
  messages.forEach((message, index) => {
    if (message.role === 'assistant' && message.tool_calls) {
      const answers = messages.slice(index + 1, index + 1 + message.tool_calls.length);
      expect(answers.map((answer) => (answer.role === 'tool' ? answer.tool_call_id : null))).toEqual(
        message.tool_calls.map((call) => call.id),
      );
    }
    if (message.role === 'tool') {
      const previous = messages[index - 1];
      expect(previous?.role === 'tool' || (previous?.role === 'assistant' && previous.tool_calls !== undefined)).toBe(true);
    }
  });
}

function rolesAfterLastTool(messages: readonly ChatMessage[]): string[] {
  const roles = messages.map((message) => message.role);
  return roles.slice(roles.lastIndexOf('tool') + 1);
}

const OPENAI_MODELS = ['gpt-4.1', 'gpt-5.2', 'gpt-5.6'];
const OPENROUTER_MODELS = ['anthropic/claude-sonnet-4.5', 'openai/gpt-5.2', 'qwen/qwen3-coder'];
const LOCAL_MODELS = ['qwen3-8b', 'deepseek-v3', 'mistral-small', 'llama-3.1-8b', 'unknown-model'];

describe('wire body properties (fast-check)', () => {
  it('every body is byte-identical when assembled twice, also from a rebuilt session', () => {
    fc.assert(
      fc.property(script, (value) => {
        const conversions = [
          (model: string) => convertToOpenAIChat(requestFor(value, model)).body,
          (model: string) => convertToOpenAIResponses(requestFor(value, model)).body,
          (model: string) => convertToOpenRouter(requestFor(value, model)).body,
          (model: string) => convertToOpenAICompatible(requestFor(value, model), { server: 'llama.cpp' }).body,
        ];
        const models = [OPENAI_MODELS, OPENAI_MODELS, OPENROUTER_MODELS, LOCAL_MODELS];
        conversions.forEach((convert, index) => {
          const model = models[index]![value.model % models[index]!.length]!;
          expect(JSON.stringify(convert(model))).toBe(JSON.stringify(convert(model)));
        });
        const request = requestFor(value, 'gpt-5.6');
        expect(JSON.stringify(convertToOpenAIChat(request).body)).toBe(JSON.stringify(convertToOpenAIChat(request).body));
      }),
      { numRuns: propertyRuns(150) },
    );
  });

  it('Chat-shaped bodies keep tool pairing and never put a fresh user turn after the last tool result', () => {
    fc.assert(
      fc.property(script, (value) => {
        const openai = requestFor(value, OPENAI_MODELS[value.model % 3]!);
        const bodies: Array<{ messages: readonly ChatMessage[]; tailUserAllowed: boolean }> = [
          { messages: convertToOpenAIChat(openai).body.messages as ChatMessage[], tailUserAllowed: false },
          ...LOCAL_MODELS.map((model) => ({
            messages: convertToOpenAICompatible(requestFor(value, model)).body.messages,
            tailUserAllowed: false,
          })),
          ...OPENROUTER_MODELS.map((model) => ({
            messages: convertToOpenRouter(requestFor(value, model)).body.messages as ChatMessage[],
            // Anthropic merges a user message after tool results into the tool-result turn.
            tailUserAllowed: model.startsWith('anthropic/'),
          })),
        ];
        for (const { messages, tailUserAllowed } of bodies) {
          expectChatPairing(messages);
          if (!openai.tail.inToolLoop) continue;
          const after = messages.slice(messages.map((message) => message.role).lastIndexOf('tool') + 1);
          for (const message of after) {
            if (message.role !== 'user') continue;
            expect(tailUserAllowed).toBe(true);
            const texts =
              typeof message.content === 'string'
                ? [message.content]
                : message.content.map((part) => (part.type === 'text' ? part.text : ''));
            expect(texts.every((text) => text.startsWith('TAIL-'))).toBe(true);
          }
          if (!tailUserAllowed) expect(rolesAfterLastTool(messages)).not.toContain('user');
        }
      }),
      { numRuns: propertyRuns(150) },
    );
  });

  it('Responses bodies answer every function call in order and keep the tail out of a user item during tool loops', () => {
    fc.assert(
      fc.property(script, (value) => {
        const request = requestFor(value, OPENAI_MODELS[value.model % 3]!);
        const input = convertToOpenAIResponses(request).body.input as Array<{ type?: string; role?: string; call_id?: string }>;
        const calls = input.filter((item) => item.type === 'function_call').map((item) => item.call_id);
        const outputs = input.filter((item) => item.type === 'function_call_output').map((item) => item.call_id);
        expect(outputs).toEqual(calls);
        if (request.tail.inToolLoop) {
          const lastOutput = input.map((item) => item.type).lastIndexOf('function_call_output');
          expect(input.slice(lastOutput + 1).some((item) => item.role === 'user')).toBe(false);
        }
      }),
      { numRuns: propertyRuns(150) },
    );
  });

  it('markers: at most 4, none on or after the tail text', () => {
    fc.assert(
      fc.property(script, (value) => {
        const request = (model: string) => requestFor(value, model);
        const bodies = [
          { body: convertToOpenAIChat(request('gpt-5.6')).body, sequence: 'messages' },
          { body: convertToOpenAIResponses(request('gpt-5.6')).body, sequence: 'input' },
          { body: convertToOpenRouter(request('anthropic/claude-sonnet-4.5')).body, sequence: 'messages' },
        ] as const;
        for (const { body, sequence } of bodies) {
          const text = JSON.stringify(body);
          const markers = text.match(/"(prompt_cache_breakpoint|cache_control)"/g) ?? [];
          expect(markers.length).toBeLessThanOrEqual(4);
          // In conversation order, every marker comes before the first tail text: a marker on
          // (or after) a tail part would write an entry the next request cannot read.
          const conversation = JSON.stringify((body as unknown as Record<string, unknown>)[sequence]);
          const firstTail = conversation.indexOf('TAIL-');
          if (firstTail < 0) continue;
          const lastMarker = Math.max(
            conversation.lastIndexOf('"prompt_cache_breakpoint"'),
            conversation.lastIndexOf('"cache_control"'),
          );
          expect(lastMarker).toBeLessThan(firstTail);
        }
      }),
      { numRuns: propertyRuns(150) },
    );
  });
});
