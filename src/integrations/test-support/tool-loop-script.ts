import fc from 'fast-check';
import { validateAnthropicBody } from '../../gateway/emulate/validate-anthropic-body.js';
import type { ScriptedAnswer } from './scripted-server.js';

/**
 * Random tool-loop conversations for the drop-ins' validity property: user turns (text, empty
 * text, an image), each answered by steps of parallel tool calls (with thinking and possibly
 * empty text before them) and a final text; a tail of 0–2 texts; the caller's marker policy.
 */
export interface ToolLoopStep {
  thinking: boolean;
  /** Text before the tool calls (`''` is an empty text block), or none. */
  text: string | null;
  toolCalls: number;
}

export interface ToolLoopTurn {
  userText: string;
  image: boolean;
  /** Tool steps, then a final step with no tool calls. */
  steps: ToolLoopStep[];
}

export interface ToolLoopScript {
  turns: ToolLoopTurn[];
  tail: string[];
  /** The scope every tail item asks for. */
  tailScope: 'auto' | 'turn' | 'request';
  existingMarkers: 'replace' | 'keep';
  /** The system prompt carries a clock and a memory recall that change every turn, and Cachet runs with `volatile: 'auto'`. */
  volatileSystem: boolean;
}

const BASE_SYSTEM = 'You are a careful coding agent.';

/** The script's system prompt at a turn (0-based): with a per-turn clock and recall when `volatileSystem`. */
export function scriptedSystem(script: ToolLoopScript, turnIndex: number): string {
  if (!script.volatileSystem) return BASE_SYSTEM;
  return `${BASE_SYSTEM}\n\n${scriptedVolatileTexts(script)[turnIndex * 2]}\n\n${scriptedVolatileTexts(script)[turnIndex * 2 + 1]}`;
}

/** Every per-turn system paragraph of the script (clock, recall; turn by turn): what `volatile: 'auto'` moves. */
export function scriptedVolatileTexts(script: ToolLoopScript): string[] {
  if (!script.volatileSystem) return [];
  return script.turns.flatMap((_turn, index) => [
    `Current time: 2026-11-23T09:0${index}:00Z`,
    `Relevant memories:\n- note ${index}`,
  ]);
}

/** One 1×1 PNG, base64. */
export const TINY_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

export const TOOL_LOOP_TOOL = {
  name: 'lookup',
  description: 'Look something up in the repository and return what was found.',
  inputSchema: {
    type: 'object' as const,
    properties: { query: { type: 'string' as const, description: 'What to look up.' } },
    required: ['query'],
  },
};

const words = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'the build is red', 'read src/app.ts', 'ok');
const sentence: fc.Arbitrary<string> = fc.array(words, { minLength: 1, maxLength: 12 }).map((parts) => parts.join(' '));

const toolStep = fc.record({
  thinking: fc.boolean(),
  text: fc.option(fc.oneof(sentence, fc.constant('')), { nil: null }),
  toolCalls: fc.integer({ min: 1, max: 3 }),
});
const finalStep = fc.record({ thinking: fc.boolean(), text: sentence, toolCalls: fc.constant(0) });

export const toolLoopScript: fc.Arbitrary<ToolLoopScript> = fc.record({
  turns: fc
    .array(
      fc.record({
        userText: fc.oneof(
          sentence,
          sentence.map((text) => `${text} ${'Long context line. '.repeat(300)}`),
        ),
        image: fc.boolean(),
        steps: fc.tuple(fc.array(toolStep, { minLength: 0, maxLength: 3 }), finalStep).map(([tools, last]) => [...tools, last]),
      }),
      { minLength: 1, maxLength: 3 },
    )
    .map((turns) => turns.map((turn) => (turn.userText === '' ? { ...turn, image: true } : turn))),
  tail: fc.array(fc.oneof(sentence, fc.constant('')), { minLength: 0, maxLength: 2 }),
  tailScope: fc.constantFrom('auto' as const, 'turn' as const, 'request' as const),
  existingMarkers: fc.constantFrom('replace' as const, 'keep' as const),
  volatileSystem: fc.boolean(),
});

/** The script's tail as a drop-in's tail function returns it. */
export function scriptedTail(script: ToolLoopScript): Array<{ text: string; scope: ToolLoopScript['tailScope'] }> {
  return script.tail.map((text) => ({ text, scope: script.tailScope }));
}

/** The model's content blocks for each step of the script, in call order. */
export function scriptedContents(script: ToolLoopScript): Array<Array<Record<string, unknown>>> {
  return script.turns.flatMap((turn, turnIndex) =>
    turn.steps.map((step, stepIndex) => {
      const content: Array<Record<string, unknown>> = [];
      if (step.thinking) content.push({ type: 'thinking', thinking: `Thinking about step ${stepIndex}.`, signature: 'c2ln' });
      if (step.text !== null) content.push({ type: 'text', text: step.text });
      for (let call = 0; call < step.toolCalls; call++) {
        content.push({
          type: 'tool_use',
          id: `toolu_${turnIndex}_${stepIndex}_${call}`,
          name: TOOL_LOOP_TOOL.name,
          input: { query: `q${turnIndex}.${stepIndex}.${call}` },
        });
      }
      return content;
    }),
  );
}

/** A Messages API reply with these content blocks, as JSON or as server-sent events. */
export function toolLoopReply(content: Array<Record<string, unknown>>, stream: boolean, id: string): ScriptedAnswer {
  const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const message = { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_sequence: null };
  if (!stream) return { kind: 'json', body: { ...message, content, stop_reason: stopReason, usage } };
  const events: Array<{ event: string; data: unknown }> = [
    { event: 'message_start', data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage } } },
  ];
  content.forEach((block, index) => {
    const delta = (value: Record<string, unknown>) =>
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: value } });
    const start = (value: Record<string, unknown>) =>
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: value } });
    switch (block.type) {
      case 'thinking':
        start({ type: 'thinking', thinking: '', signature: '' });
        delta({ type: 'thinking_delta', thinking: block.thinking });
        delta({ type: 'signature_delta', signature: block.signature });
        break;
      case 'text':
        start({ type: 'text', text: '' });
        if (block.text !== '') delta({ type: 'text_delta', text: block.text });
        break;
      default:
        start({ ...block, input: {} });
        delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input) });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return { kind: 'sse', events };
}

type Block = Record<string, unknown>;
type WireMessage = { role: string; content: string | Block[] };

/**
 * Why a body Cachet sent would be refused or would change the conversation, or null:
 * the emulator's validator, tool results first in their user message, and — against the body
 * the library sent without Cachet for the same call — the same messages in the same roles with
 * the same blocks once markers are removed, the tail texts only at the end of the last message.
 */
export function toolLoopViolation(
  cachetBody: Record<string, unknown>,
  ownBody: Record<string, unknown>,
  tail: string[],
  volatileTexts: readonly string[] = [],
): string | null {
  const refused = validateAnthropicBody(cachetBody);
  if (refused) return `refused: ${refused}`;
  const messages = cachetBody.messages as WireMessage[];
  for (const [index, message] of messages.entries()) {
    if (typeof message.content === 'string') continue;
    const firstOther = message.content.findIndex((block) => block.type !== 'tool_result');
    const lastResult = message.content.findLastIndex((block) => block.type === 'tool_result');
    if (firstOther !== -1 && lastResult > firstOther) return `messages.${index}: a tool_result after other content`;
  }
  // Tail texts end user messages: request texts the last one, turn texts the message that opened their turn.
  const texts = new Set([...tail, ...volatileTexts].filter((text) => text !== ''));
  const own = (unmarked(ownBody.messages) as WireMessage[]).map((message) => withoutTrailingTail(message, texts));
  const sent = (unmarked(messages) as WireMessage[]).map((message) => withoutTrailingTail(message, texts));
  if (sent.length !== own.length) return `${sent.length} messages where the library sent ${own.length}`;
  const normalised = (list: WireMessage[]) => JSON.stringify(list.map(blocksOf));
  if (normalised(sent) !== normalised(own)) return 'messages differ from the library’s own beyond markers and the tail';
  const ownSystem = withoutParagraphs(systemBlocks(ownBody.system), new Set(volatileTexts));
  if (JSON.stringify(systemBlocks(cachetBody.system)) !== JSON.stringify(ownSystem)) return 'system differs';
  return null;
}

function withoutTrailingTail(message: WireMessage, texts: ReadonlySet<string>): WireMessage {
  if (message.role !== 'user' || texts.size === 0) return message;
  const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
  while (blocks.length > 0 && blocks.at(-1)?.type === 'text' && texts.has(String(blocks.at(-1)?.text))) blocks.pop();
  return { ...message, content: blocks };
}

/** A message's blocks without empty text blocks (Cachet drops those: the API refuses them). */
function blocksOf(message: WireMessage): { role: string; content: Block[] } {
  const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  return { role: message.role, content: content.filter((block) => !(block.type === 'text' && block.text === '')) };
}

function systemBlocks(system: unknown): unknown {
  return unmarked(typeof system === 'string' ? [{ type: 'text', text: system }] : (system ?? []));
}

/** System text blocks without the given paragraphs (what `volatile: 'auto'` moves); blocks left empty dropped. */
function withoutParagraphs(blocks: unknown, moved: ReadonlySet<string>): unknown {
  if (moved.size === 0 || !Array.isArray(blocks)) return blocks;
  return blocks.flatMap((block: Block) => {
    if (block.type !== 'text') return [block];
    const text = String(block.text)
      .split('\n\n')
      .filter((paragraph) => !moved.has(paragraph))
      .join('\n\n');
    return text === '' ? [] : [{ ...block, text }];
  });
}

function unmarked(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null), (key, entry) => (key === 'cache_control' ? undefined : entry));
}

/** What a run's bodies exercised, so a property test can show it did not pass vacuously. */
export interface ToolLoopCoverage {
  bodies: number;
  thinking: number;
  images: number;
  parallelResults: number;
  tailAfterResults: number;
  /** Bodies where an earlier turn's opening message kept a turn-scoped tail text. */
  turnTail: number;
  /** Bodies where a system paragraph moved by `volatile: 'auto'` sat in a user message. */
  volatileMoved: number;
}

export function emptyCoverage(): ToolLoopCoverage {
  return { bodies: 0, thinking: 0, images: 0, parallelResults: 0, tailAfterResults: 0, turnTail: 0, volatileMoved: 0 };
}

export function addCoverage(
  coverage: ToolLoopCoverage,
  body: Record<string, unknown>,
  tail: string[],
  volatileTexts: readonly string[] = [],
): void {
  const messages = (body.messages as WireMessage[]).map(blocksOf);
  const all = messages.flatMap((message) => message.content);
  coverage.bodies++;
  if (all.some((block) => block.type === 'thinking')) coverage.thinking++;
  if (all.some((block) => block.type === 'image')) coverage.images++;
  if (messages.some((message) => message.content.filter((block) => block.type === 'tool_result').length > 1))
    coverage.parallelResults++;
  const last = messages.at(-1)?.content ?? [];
  const texts = tail.filter((text) => text !== '');
  if (texts.length > 0 && last.some((block) => block.type === 'tool_result') && last.at(-1)?.text === texts.at(-1))
    coverage.tailAfterResults++;
  const earlier = messages.slice(0, -1).filter((message) => message.role === 'user');
  if (texts.length > 0 && earlier.some((message) => texts.includes(String(message.content.at(-1)?.text)))) coverage.turnTail++;
  const userTexts = all.flatMap((block) => (block.type === 'text' ? [String(block.text)] : []));
  if (volatileTexts.some((text) => userTexts.includes(text))) coverage.volatileMoved++;
}
