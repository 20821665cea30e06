import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cacheControlTtl } from '../../cache/wire/normalize-anthropic.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { ANTHROPIC_LOOKBACK_POSITIONS, ANTHROPIC_MAX_BREAKPOINTS } from '../../providers/anthropic/models.js';
import { type PlanContext, type PlanOptions, planCacheFields } from './plan-cache-fields.js';

type JsonRecord = Record<string, unknown>;
const isRecord = (value: unknown): value is JsonRecord => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The plan as it was written before copy on write: a copy of every markable container, then the
 * markers removed from every block and placed. The reference the shared-object plan must equal.
 */
function copyEverythingPlan(body: JsonRecord, context: PlanContext, options: PlanOptions) {
  const copyBlocks = (list: unknown[]) => list.map((item) => (isRecord(item) ? { ...item } : item));
  const planned: JsonRecord = { ...body };
  if (Array.isArray(body.tools)) planned.tools = copyBlocks(body.tools);
  if (Array.isArray(body.system)) planned.system = copyBlocks(body.system);
  if (Array.isArray(body.messages)) {
    planned.messages = body.messages.map((message) =>
      isRecord(message) && Array.isArray(message.content)
        ? { ...message, content: copyBlocks(message.content) }
        : isRecord(message)
          ? { ...message }
          : message,
    );
  }
  delete planned.cache_control;
  type Block = { block: JsonRecord; path: string; zone: string; position: number; message: number | null; markable: boolean };
  const blocks: Block[] = [];
  const push = (block: unknown, path: string, zone: string, message: number | null) => {
    if (!isRecord(block)) return;
    const markable =
      block.type !== 'thinking' && block.type !== 'redacted_thinking' && !(block.type === 'text' && block.text === '');
    blocks.push({ block, path, zone, position: blocks.length, message, markable });
  };
  (Array.isArray(planned.tools) ? planned.tools : []).forEach((tool, index) => {
    push(tool, `tools[${index}]`, 'tools', null);
  });
  if (typeof planned.system === 'string' && planned.system.length > 0) planned.system = [{ type: 'text', text: planned.system }];
  (Array.isArray(planned.system) ? planned.system : []).forEach((block, index) => {
    push(block, `system[${index}]`, 'system', null);
  });
  (Array.isArray(planned.messages) ? planned.messages : []).forEach((message, at) => {
    if (!isRecord(message)) return;
    if (typeof message.content === 'string' && message.content.length > 0)
      message.content = [{ type: 'text', text: message.content }];
    if (Array.isArray(message.content))
      message.content.forEach((block, index) => {
        push(block, `messages[${at}].content[${index}]`, 'messages', at);
      });
  });
  const lastMarkable = (zone: string) => blocks.findLast((block) => block.zone === zone && block.markable);
  const tail = (zone: string) => {
    const last = lastMarkable(zone);
    const marked = blocks.findLast((block) => block.zone === zone && block.markable && isRecord(block.block.cache_control));
    if (!last || !marked || marked === last) return undefined;
    if (marked.message === last.message) return marked;
    return zone === 'messages' && marked.message !== null && marked.message === (last.message ?? 0) - 1 ? marked : undefined;
  };
  const system = tail('system') ?? lastMarkable('system');
  const history = tail('messages') ?? lastMarkable('messages');
  // The client's 1-hour markers: the plan keeps 1 hour up to the last one.
  const longUntil = blocks.findLast((block) => cacheControlTtl(block.block.cache_control) === '1h')?.position ?? -1;
  for (const block of blocks) delete block.block.cache_control;
  const chosen = [lastMarkable('tools'), system].filter((block) => block !== undefined);
  const previous = context.previousBreakpointPosition;
  if (history && previous !== null && history.position - previous >= ANTHROPIC_LOOKBACK_POSITIONS) {
    const guard = blocks.findLast((block) => block.markable && block.zone === 'messages' && block.position <= previous);
    if (guard && guard !== history) chosen.push(guard);
  }
  if (history) chosen.push(history);
  while (chosen.length > ANTHROPIC_MAX_BREAKPOINTS) chosen.shift();
  for (const entry of chosen)
    entry.block.cache_control =
      options.ttl === '1h' || entry.position <= longUntil ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  if ((options.diagnostics ?? true) && !isRecord(planned.diagnostics))
    planned.diagnostics = { previous_message_id: context.previousResponseId };
  return { body: planned, lastBreakpointPosition: history?.position ?? null, breakpoints: chosen.map((block) => block.path) };
}

const marker = fc.constantFrom(undefined, { type: 'ephemeral' }, { type: 'ephemeral', ttl: '1h' }, 'not-a-marker');
const withMarker = (block: JsonRecord, cacheControl: unknown) =>
  cacheControl === undefined ? block : { ...block, cache_control: cacheControl };
const block = fc.tuple(fc.constantFrom('text', 'empty', 'thinking', 'tool_use', 'image'), marker).map(([type, cacheControl]) => {
  const shapes: Record<string, JsonRecord> = {
    text: { type: 'text', text: 'some words' },
    empty: { type: 'text', text: '' },
    thinking: { type: 'thinking', thinking: 'hmm', signature: 's' },
    tool_use: { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a' } },
    image: { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } },
  };
  return withMarker(shapes[type]!, cacheControl);
});
const content = fc.oneof(fc.constantFrom('', 'a string turn'), fc.array(block, { maxLength: 4 }));
const message = fc.record({ role: fc.constantFrom('user', 'assistant'), content });
const body = fc
  .record(
    {
      model: fc.constant('claude-sonnet-4-5'),
      tools: fc.array(
        fc.tuple(fc.string({ maxLength: 3 }), marker).map(([name, cc]) => withMarker({ name, input_schema: {} }, cc)),
        { maxLength: 3 },
      ),
      system: fc.oneof(fc.constantFrom('', 'be terse'), fc.array(block, { maxLength: 3 })),
      messages: fc.array(message, { maxLength: 30 }),
      cache_control: marker,
      diagnostics: fc.constantFrom(undefined, { previous_message_id: 'kept' }),
    },
    { requiredKeys: ['model', 'messages'] },
  )
  .map((drawn): JsonRecord => drawn);
const context: fc.Arbitrary<PlanContext> = fc.record({
  conversationId: fc.constant('c1'),
  previousResponseId: fc.constantFrom(null, 'msg_1'),
  previousBreakpointPosition: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
});
const options: fc.Arbitrary<PlanOptions> = fc.record({
  ttl: fc.constantFrom<'5m' | '1h'>('5m', '1h'),
  diagnostics: fc.boolean(),
});

const text = (words: string, cacheControl?: unknown) => withMarker({ type: 'text', text: words }, cacheControl);
const turns = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [text(`turn ${index}`)],
  }));
/** Required cases, whatever the draws: the lookback guard, a client tail in the final message, client markers on early messages. */
const examples: Array<[JsonRecord, PlanContext, PlanOptions]> = [
  [
    { model: 'claude-sonnet-4-5', system: 'be terse', messages: turns(25) },
    { conversationId: 'c1', previousResponseId: 'msg_1', previousBreakpointPosition: 3 },
    { ttl: '5m', diagnostics: true },
  ],
  [
    {
      model: 'claude-sonnet-4-5',
      system: [text('rules', { type: 'ephemeral' }), text('today')],
      messages: [...turns(4), { role: 'user', content: [text('ask', { type: 'ephemeral' }), text('volatile')] }],
    },
    { conversationId: 'c1', previousResponseId: null, previousBreakpointPosition: null },
    { ttl: '1h', diagnostics: false },
  ],
  [
    {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user', content: [text('first', { type: 'ephemeral', ttl: '1h' })] },
        ...turns(5),
        { role: 'user', content: 'a string turn' },
      ],
    },
    { conversationId: 'c1', previousResponseId: null, previousBreakpointPosition: 1 },
    { ttl: '5m', diagnostics: true },
  ],
];

describe('planCacheFields, copy on write', () => {
  it('plans what a copy of every block planned, leaves the client body as it was, and copies only what it edits', () => {
    fc.assert(
      fc.property(body, context, options, (client, planContext, planOptions) => {
        const before = structuredClone(client);
        const planned = planCacheFields('anthropic', client, planContext, planOptions);
        expect(client).toEqual(before);
        const reference = copyEverythingPlan(structuredClone(client), planContext, planOptions);
        expect(JSON.stringify(planned.body)).toBe(JSON.stringify(reference.body));
        expect(planned.breakpoints).toEqual(reference.breakpoints);
        expect(planned.lastBreakpointPosition).toBe(reference.lastBreakpointPosition);
        // A message the plan neither marks nor unmarks nor rewrites is the client's object.
        const edited = new Set<number>();
        for (const path of planned.breakpoints)
          if (path.startsWith('messages[')) edited.add(Number(path.slice(9, path.indexOf(']'))));
        (client.messages as JsonRecord[]).forEach((original, index) => {
          const content = original.content;
          if (typeof content === 'string' && content.length > 0) edited.add(index);
          if (Array.isArray(content) && content.some((item) => isRecord(item) && 'cache_control' in item)) edited.add(index);
          const same = (planned.body.messages as unknown[])[index] === original;
          expect(same).toBe(!edited.has(index));
        });
      }),
      { numRuns: propertyRuns(300), examples },
    );
  });
});
