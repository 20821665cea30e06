import { validateChatBody, validateResponsesBody } from '../../gateway/emulate/validate-openai-body.js';
import type { ToolLoopCoverage } from './tool-loop-script.js';

type Block = Record<string, unknown>;
type Item = Record<string, unknown>;

/** Which OpenAI wire shape a body has: Chat Completions (`messages`) or Responses (`input`). */
export type OpenAIShape = 'chat' | 'responses';

/** Top-level fields Cachet may set on an OpenAI body: its cache routing. */
const CACHE_FIELDS = new Set(['prompt_cache_key', 'prompt_cache_retention']);
const TEXT_PARTS = new Set(['text', 'input_text']);

const itemsOf = (body: Record<string, unknown>, shape: OpenAIShape): Item[] =>
  (shape === 'chat' ? body.messages : body.input) as Item[];
const isInstruction = (item: Item) => item.role === 'system' || item.role === 'developer';

/**
 * Why an OpenAI body Cachet sent would be refused or would change the conversation, or null:
 * the emulator's validator (every tool call answered, each answer right after its call), and —
 * against the body the library sent without Cachet for the same call — the same items in the
 * same order once the tail texts are taken off the end of user messages, a system message made
 * only of tail texts is dropped, and the moved volatile paragraphs are put back out of the system
 * prompt; every other top-level field equal except the cache key and retention.
 */
export function openAIToolLoopViolation(
  shape: OpenAIShape,
  cachetBody: Record<string, unknown>,
  ownBody: Record<string, unknown>,
  tail: readonly string[],
  volatileTexts: readonly string[] = [],
): string | null {
  const refused = shape === 'chat' ? validateChatBody(cachetBody) : validateResponsesBody(cachetBody);
  if (refused) return `refused: ${refused}`;
  const calls = shape === 'responses' ? unansweredOrSplitCalls(itemsOf(cachetBody, shape)) : null;
  if (calls) return calls;
  const texts = new Set([...tail, ...volatileTexts].filter((text) => text !== ''));
  const sent = normalisedItems(itemsOf(cachetBody, shape), texts, new Set());
  const own = normalisedItems(itemsOf(ownBody, shape), new Set(), new Set(volatileTexts));
  if (sent.length !== own.length) return `${sent.length} items where the library sent ${own.length}`;
  for (const [index, item] of sent.entries()) {
    if (JSON.stringify(item) !== JSON.stringify(own[index])) return `item ${index} differs from the library’s own`;
  }
  const rest = (body: Record<string, unknown>) =>
    JSON.stringify(Object.entries(body).filter(([key]) => !CACHE_FIELDS.has(key) && key !== 'messages' && key !== 'input'));
  if (rest(cachetBody) !== rest(ownBody)) return 'top-level fields differ beyond the cache key';
  if (typeof cachetBody.prompt_cache_key !== 'string') return 'no prompt_cache_key';
  return null;
}

/** Responses input: every function_call answered, and its output before the next non-call item. */
function unansweredOrSplitCalls(items: Item[]): string | null {
  let open: string[] = [];
  for (const [index, item] of items.entries()) {
    if (item.type === 'function_call') open.push(String(item.call_id));
    else if (item.type === 'function_call_output') open = open.filter((id) => id !== String(item.call_id));
    else if (open.length > 0) return `input.${index}: calls ${open.join(', ')} not answered before other input`;
  }
  return open.length > 0 ? `calls ${open.join(', ')} never answered` : null;
}

function normalisedItems(items: Item[], tailTexts: ReadonlySet<string>, movedParagraphs: ReadonlySet<string>): Item[] {
  return items.flatMap((item, index) => {
    const text = typeof item.content === 'string' ? item.content : null;
    if (isInstruction(item) && text !== null) {
      if (index > 0 && tailTexts.size > 0 && text.split('\n\n').every((paragraph) => tailTexts.has(paragraph))) return [];
      const kept = text
        .split('\n\n')
        .filter((paragraph) => !movedParagraphs.has(paragraph))
        .join('\n\n');
      return [{ ...item, content: kept }];
    }
    if (item.role !== 'user') return [item];
    const parts: Block[] = text !== null ? [{ type: 'text', text }] : [...(item.content as Block[])];
    while (parts.length > 0 && TEXT_PARTS.has(String(parts.at(-1)?.type)) && tailTexts.has(String(parts.at(-1)?.text)))
      parts.pop();
    return [{ ...item, content: parts.map((part) => (part.type === 'input_text' ? { ...part, type: 'text' } : part)) }];
  });
}

/** What a run's OpenAI bodies exercised (same counters as the Anthropic shape; no thinking there). */
export function addOpenAICoverage(
  shape: OpenAIShape,
  coverage: ToolLoopCoverage,
  body: Record<string, unknown>,
  tail: readonly string[],
  volatileTexts: readonly string[] = [],
): void {
  const items = itemsOf(body, shape);
  const isResult = (item: Item) => item.role === 'tool' || item.type === 'function_call_output';
  const userParts = (item: Item): Block[] =>
    item.role !== 'user'
      ? []
      : typeof item.content === 'string'
        ? [{ type: 'text', text: item.content }]
        : (item.content as Block[]);
  coverage.bodies++;
  if (items.some((item) => userParts(item).some((part) => part.type === 'image_url' || part.type === 'input_image')))
    coverage.images++;
  if (items.some((item, index) => isResult(item) && index > 0 && isResult(items[index - 1]!))) coverage.parallelResults++;
  const texts = tail.filter((text) => text !== '');
  const tailSystem = (item: Item) =>
    isInstruction(item) && typeof item.content === 'string' && texts.length > 0 && item.content.endsWith(texts.at(-1)!);
  if (texts.length > 0 && items.at(-1) && tailSystem(items.at(-1)!) && isResult(items.at(-2) ?? {})) coverage.tailAfterResults++;
  const lastUser = items.findLastIndex((item) => item.role === 'user');
  const earlier = items.slice(0, Math.max(lastUser, 0)).filter((item) => item.role === 'user');
  if (texts.some((text) => earlier.some((item) => userParts(item).at(-1)?.text === text))) coverage.turnTail++;
  const moved = items.flatMap((item) => userParts(item).map((part) => String(part.text)));
  if (volatileTexts.some((text) => moved.includes(text))) coverage.volatileMoved++;
}

/** A property judge for one OpenAI wire shape (see `checkToolLoopProperty`). */
export function openAIJudge(shape: OpenAIShape) {
  return {
    violation: (cachet: Record<string, unknown>, own: Record<string, unknown>, tail: string[], volatile?: readonly string[]) =>
      openAIToolLoopViolation(shape, cachet, own, tail, volatile),
    addCoverage: (coverage: ToolLoopCoverage, body: Record<string, unknown>, tail: string[], volatile?: readonly string[]) =>
      addOpenAICoverage(shape, coverage, body, tail, volatile),
  };
}
