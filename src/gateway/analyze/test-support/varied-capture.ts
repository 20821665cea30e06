/**
 * A deterministic capture that walks through most of what `cachet analyze` judges: Anthropic
 * conversations with and without markers, a clock in the system prompt, a TTL gap, a
 * `tool_choice` change, a lookback overrun, an edited history, reported usage with the server's
 * diagnosis, Chat Completions and Responses conversations, all interleaved in time. The golden
 * test pins `analyzeCapture`'s whole output on it, so speed work cannot change a figure.
 * Not exported from the package.
 */
import { words } from '../../../cache/test-support/fixtures.js';
import type { CapturedRequest } from '../read-capture.js';

const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const persona = `You are a careful coding agent. ${words(1800, 'rule')}`;
const readFileTool = {
  name: 'read_file',
  description: 'Read a file from the workspace.',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

type Block = Record<string, unknown>;
type Message = { role: 'user' | 'assistant'; content: string | Block[] };

/** Messages of an Anthropic tool loop: `turns` user turns, each answered with a tool call and its result. */
function toolLoop(turns: number, conversation: string, options: { stringContent?: boolean; edited?: number } = {}): Message[] {
  const messages: Message[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const ask = `[${conversation}] request ${turn}: ${words(30, `u${turn}`)}${options.edited === turn ? ' (edited)' : ''}`;
    messages.push({ role: 'user', content: options.stringContent ? ask : [{ type: 'text', text: ask }] });
    if (turn === turns - 1) break;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `[${conversation}] reading ${turn}` },
        { type: 'tool_use', id: `toolu_${conversation}${turn}`, name: 'read_file', input: { path: `src/file${turn}.ts` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${conversation}${turn}`, content: words(50, `f${turn}`) }],
    });
    messages.push({
      role: 'assistant',
      content: [{ type: 'text', text: `[${conversation}] answer ${turn}: ${words(20, `a${turn}`)}` }],
    });
  }
  return messages;
}

function markLast(messages: Message[]): Message[] {
  const last = messages.at(-1)!;
  if (typeof last.content === 'string') last.content = [{ type: 'text', text: last.content }];
  (last.content.at(-1) as Block).cache_control = { type: 'ephemeral' };
  return messages;
}

function anthropic(
  conversation: string,
  turns: number,
  options: { marked?: boolean; clock?: string; toolChoice?: Block; stringContent?: boolean; edited?: number } = {},
): Record<string, unknown> {
  const marked = options.marked ?? true;
  const messages = toolLoop(turns, conversation, options);
  const system: Block[] = [{ type: 'text', text: persona, ...(marked ? { cache_control: { type: 'ephemeral' } } : {}) }];
  if (options.clock) system.push({ type: 'text', text: `Current time: ${options.clock}.` });
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 2048,
    tools: [readFileTool],
    system,
    ...(options.toolChoice ? { tool_choice: options.toolChoice } : {}),
    messages: marked ? markLast(messages) : messages,
  };
}

function chat(conversation: string, turns: number, systemSuffix = ''): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: `${persona}${systemSuffix}` }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: 'user', content: `[${conversation}] request ${turn}: ${words(40, `u${turn}`)}` });
    if (turn < turns - 1)
      messages.push({ role: 'assistant', content: `[${conversation}] answer ${turn}: ${words(60, `a${turn}`)}` });
  }
  return { model: 'gpt-4.1', messages, prompt_cache_key: `key-${conversation}` };
}

function responses(conversation: string, turns: number): Record<string, unknown> {
  const input: Array<Record<string, unknown>> = [];
  for (let turn = 0; turn < turns; turn++) {
    input.push({ role: 'user', content: `[${conversation}] request ${turn}: ${words(40, `u${turn}`)}` });
    if (turn < turns - 1)
      input.push({ role: 'assistant', content: `[${conversation}] answer ${turn}: ${words(60, `a${turn}`)}` });
  }
  return { model: 'gpt-5', instructions: persona, input };
}

/** The capture, in time order (conversations interleaved). */
export function variedCapture(): CapturedRequest[] {
  const requests: CapturedRequest[] = [];
  // A: marked, a clock that ticks at turn 4, a 7-minute gap before turn 7, tool_choice set at turn 9.
  for (let turn = 1; turn <= 11; turn++) {
    const gap = turn >= 7 ? 7 * MINUTE : 0;
    requests.push({
      at: T0 + turn * 40 * SECOND + gap,
      conversation: 'A',
      body: anthropic('A', turn, {
        clock: turn < 4 ? '2026-11-23 10:00' : '2026-11-23 10:05',
        ...(turn >= 9 ? { toolChoice: { type: 'auto' } } : {}),
      }),
    });
  }
  // B: no markers, string contents, usage reported by the provider, the server's diagnosis on one miss.
  for (let turn = 1; turn <= 5; turn++) {
    requests.push({
      at: T0 + turn * 40 * SECOND + 5 * SECOND,
      conversation: 'B',
      provider: 'anthropic',
      body: anthropic('B', turn, { marked: false, stringContent: true }),
      usage: {
        input_tokens: 2100 + turn * 180,
        output_tokens: 40,
        cache_read_input_tokens: turn === 4 ? 0 : turn > 1 ? 1900 : 0,
        cache_creation_input_tokens: 0,
      },
      ...(turn === 4 ? { cacheMissReason: { type: 'messages_changed', missedTokens: 1900 } } : {}),
    });
  }
  // C: marked, then a jump of many blocks (lookback), then an edited first request.
  for (const [step, turns] of [
    [1, 2],
    [2, 3],
    [3, 12],
    [4, 13],
  ] as const) {
    requests.push({
      at: T0 + step * 30 * SECOND + 10 * SECOND,
      conversation: 'C',
      body: anthropic('C', turns, step === 4 ? { edited: 0 } : {}),
    });
  }
  // D: Chat Completions, the system prompt changes at turn 4. E: Responses.
  for (let turn = 1; turn <= 5; turn++) {
    requests.push({
      at: T0 + turn * 45 * SECOND + 15 * SECOND,
      conversation: 'D',
      body: chat('D', turn, turn >= 4 ? ' Be brief.' : ''),
      ...(turn > 1
        ? {
            usage: {
              prompt_tokens: 2500 + turn * 110,
              completion_tokens: 30,
              prompt_tokens_details: { cached_tokens: turn === 4 ? 0 : 2304 },
            },
          }
        : {}),
    });
  }
  for (let turn = 1; turn <= 4; turn++) {
    requests.push({ at: T0 + turn * 50 * SECOND + 20 * SECOND, body: responses('E', turn) });
  }
  // F: no conversation given: grouped by the stable-prefix hash.
  for (let turn = 1; turn <= 3; turn++) {
    requests.push({ at: T0 + turn * 20 * SECOND + 25 * SECOND, body: anthropic('F', turn, { marked: turn !== 2 }) });
  }
  return requests.sort((left, right) => left.at - right.at);
}
