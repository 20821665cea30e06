/**
 * Seeded hostile captures for `cachet analyze`'s reader: conversations that grow, get edited in
 * the middle, rewind, move or drop their markers, change their system prompt, interleave (two
 * without a conversation id open with the same message), with tool references, images, empty
 * and thinking blocks, markers where the API refuses them, `"__proto__"` members, escapes, big
 * numbers, spaces between items and invalid UTF-8. Deterministic per seed. Test support only.
 */

import { mulberry32 } from '../../../model/mulberry32.js';

type Json = Record<string, unknown>;

/** A small seeded generator (mulberry32): the same seed, the same capture. */
export const seededRandom = mulberry32;

const words = (count: number, tag: string) => Array.from({ length: count }, (_, index) => `${tag}${index % 7}`).join(' ');

function hostileBlock(random: () => number, at: number): Json {
  const kinds = ['text', 'text', 'tool_use', 'tool_result', 'image', 'thinking', 'empty', 'reference', 'proto'] as const;
  switch (kinds[Math.floor(random() * kinds.length)]) {
    case 'tool_use':
      // A number JSON.parse rounds (written out in full below): both readers must round it alike.
      return { type: 'tool_use', id: `t${at}`, name: 'read', input: { path: `f${at}`, n: 1.2345678901234568e22 } };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: `t${at}`, content: words(30, `r${at}`) };
    case 'image':
      return { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
    case 'thinking':
      return { type: 'thinking', thinking: words(10, 'th'), signature: 'sig' };
    case 'empty':
      return { type: 'text', text: '' };
    case 'reference':
      return { type: 'tool_result', tool_use_id: `t${at}`, content: [{ type: 'tool_reference', tool_name: 'deferred_tool' }] };
    case 'proto':
      // A member named "__proto__" is data in JSON (and to the API), never a prototype.
      return JSON.parse(`{"__proto__":{"cache_control":{"type":"ephemeral"}},"type":"text","text":"p${at} \\"q\\" \\\\ é"}`);
    default:
      return { type: 'text', text: words(20 + Math.floor(random() * 40), `w${at}`) };
  }
}

interface Conversation {
  id: string | null;
  messages: Json[];
  system: unknown;
  marked: boolean;
  model: string;
}

/** One step of a conversation before its next line: append, edit, toggle its marker, change its system, rewind, or mark a thinking block. */
function step(conversation: Conversation, random: () => number, line: number): void {
  const operation = random();
  const count = conversation.messages.length;
  if (operation < 0.55) {
    const content =
      random() < 0.2
        ? words(15, `s${count}`)
        : Array.from({ length: 1 + Math.floor(random() * 3) }, (_, index) => hostileBlock(random, count * 10 + index));
    conversation.messages.push({ role: count % 2 ? 'assistant' : 'user', content });
  } else if (operation < 0.65 && count > 2) {
    const edited = 1 + Math.floor(random() * (count - 1));
    conversation.messages[edited] = { ...conversation.messages[edited], content: [{ type: 'text', text: `edited ${line}` }] };
  } else if (operation < 0.72) {
    conversation.marked = !conversation.marked;
  } else if (operation < 0.78) {
    conversation.system =
      typeof conversation.system === 'string'
        ? `${conversation.system}!`
        : [(conversation.system as Json[])[0], { type: 'text', text: `clock ${line}` }];
  } else if (operation < 0.82 && count > 3) {
    conversation.messages = conversation.messages.slice(0, count - 2);
  } else if (operation < 0.86) {
    const last = conversation.messages.at(-1)!;
    if (Array.isArray(last.content)) {
      last.content = [...last.content, { type: 'thinking', thinking: 'x', signature: 's', cache_control: { type: 'ephemeral' } }];
    }
  }
}

/** `lines` capture lines (bytes, without line ends) from four conversations, by seed. */
export function hostileCapture(seed: number, lines: number): Buffer[] {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const tools = [
    { name: 'read', description: 'r', input_schema: { type: 'object' } },
    { name: 'deferred_tool', description: 'd', input_schema: { type: 'object' }, defer_loading: true },
  ];
  const conversations: Conversation[] = Array.from({ length: 4 }, (_, index) => ({
    // Two without an id open alike: the reader keys them by their first item, the analyzer by its hash.
    id: index < 2 ? null : `conversation-${index}`,
    messages: [
      index < 3 ? { role: 'user', content: [{ type: 'text', text: 'the same opening' }] } : { role: 'user', content: 'opening' },
    ],
    system: pick([
      `system ${index} ${words(50, 's')}`,
      [
        { type: 'text', text: words(60, 's') },
        { type: 'text', text: `clock ${index}` },
      ],
    ]),
    marked: random() < 0.7,
    model: pick(['claude-sonnet-4-5', 'claude-haiku-4-5']),
  }));
  const capture: Buffer[] = [];
  let at = Date.UTC(2026, 10, 1);
  for (let line = 0; line < lines; line++) {
    const conversation = pick(conversations);
    step(conversation, random, line);
    const messages = structuredClone(conversation.messages);
    const last = messages.at(-1)!;
    if (conversation.marked && Array.isArray(last.content) && last.content.length > 0) {
      (last.content.at(-1) as Json).cache_control = { type: 'ephemeral', ...(random() < 0.3 ? { ttl: '1h' } : {}) };
    }
    at += Math.floor(random() * 8 * 60_000);
    const record: Json = {
      at,
      ...(conversation.id ? { conversation: conversation.id } : {}),
      body: { model: conversation.model, max_tokens: 100, system: conversation.system, tools, messages },
    };
    if (random() < 0.3) {
      record.usage = {
        input_tokens: 100 + line,
        cache_read_input_tokens: line * 10,
        cache_creation_input_tokens: 5,
        output_tokens: 3,
      };
    }
    // The big number as a client writes it (JSON.stringify would write the rounded double).
    let text = JSON.stringify(record).replaceAll('1.2345678901234568e+22', '12345678901234567890123');
    if (random() < 0.15) text = text.replace(/\},\{"role"/g, '} , {"role"');
    const bytes = Buffer.from(text);
    if (random() < 0.15) {
      const at = bytes.indexOf('w1');
      if (at > 0) bytes[at] = 0xff;
    }
    capture.push(bytes);
  }
  return capture;
}
