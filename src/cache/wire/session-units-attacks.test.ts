import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../model/mulberry32.js';
import { createBreakDetector } from '../break/break-detector.js';
import { createAnthropicCacheModel } from '../models/anthropic-cache-model.js';
import { normalizeAnthropicBody } from './normalize-anthropic.js';

/**
 * Attacks on normalisation's session memo (a session's bodies share frozen messages, so their
 * units are read by message index and their storage shared between bodies): over seeded hostile
 * sequences, every body's units and every break the detector reports must be what the same
 * bodies give with nothing frozen or shared (a JSON copy), and so must every verdict of the
 * Anthropic cache model. Sequences interleave two sessions
 * opening with the very same frozen content array, edit, move and drop messages, rewind across
 * 64-unit chunk boundaries, flip a role on the same content array, move markers, change the
 * tools (the units before the messages), and send the same body object twice.
 */

type Block = Readonly<Record<string, unknown>>;
type Message = Readonly<{ role: 'user' | 'assistant'; content: readonly Block[] }>;
type Body = Record<string, unknown> & { messages: readonly Message[] };

const freezeDeep = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) freezeDeep((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
};

/** The opening both sessions send: one frozen constant (an agent's fixed first message). */
const OPENING: Message = freezeDeep({ role: 'user', content: [{ type: 'text', text: 'You are a careful agent. Begin.' }] });

function blockOf(random: () => number, tag: string): Record<string, unknown> {
  const roll = random();
  if (roll < 0.5) return { type: 'text', text: `${tag} ${'w'.repeat(Math.floor(random() * 40))}` };
  if (roll < 0.65) return { type: 'tool_use', id: `t${tag}`, name: 'read', input: { path: tag, n: 1e300, 'k"q': '\\u00e9' } };
  if (roll < 0.8) return { type: 'tool_result', tool_use_id: `t${tag}`, content: [{ type: 'text', text: `result ${tag}` }] };
  if (roll < 0.9) return { type: 'thinking', thinking: `hm ${tag}`, signature: 's' };
  return { type: 'text', text: '' };
}

function messageOf(random: () => number, role: Message['role'], tag: string, marked = false): Message {
  const blocks = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, index) => blockOf(random, `${tag}.${index}`));
  if (marked) blocks.at(-1)!.cache_control = random() < 0.5 ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: '1h' };
  return freezeDeep({ role, content: blocks });
}

const TOOLS = [
  { name: 'read', description: 'Reads a file.', input_schema: { type: 'object' } },
  { name: 'write', description: 'Writes a file.', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
];

/** One session's next history from its last: mostly appended, sometimes edited, moved, rewound or re-roled. */
function nextHistory(random: () => number, history: Message[], tag: string): Message[] {
  const roll = random();
  const next = history.slice();
  const role = (index: number): Message['role'] => (index % 2 === 0 ? 'user' : 'assistant');
  if (roll < 0.55 || next.length < 4) {
    const count = 1 + Math.floor(random() * 60);
    for (let index = 0; index < count; index++)
      next.push(messageOf(random, role(next.length), `${tag}.${index}`, random() < 0.1));
  } else if (roll < 0.65) {
    const at = 1 + Math.floor(random() * (next.length - 1));
    next[at] = messageOf(random, role(at), `${tag}.edit`);
  } else if (roll < 0.72) {
    const at = 1 + Math.floor(random() * (next.length - 2));
    [next[at], next[at + 1]] = [next[at + 1]!, next[at]!];
  } else if (roll < 0.82) {
    next.length = Math.ceil(next.length / 2) + Math.floor(random() * (next.length / 2));
  } else if (roll < 0.9) {
    const at = 1 + Math.floor(random() * (next.length - 1));
    const message = next[at]!;
    // The same frozen content array under the other role.
    next[at] = freezeDeep({ role: message.role === 'user' ? 'assistant' : 'user', content: message.content });
  } else {
    const last = next.length - 1;
    next[last] = messageOf(random, next[last]!.role, `${tag}.marker`, true);
  }
  return next;
}

/** Bodies of two sessions sharing their opening, interleaved; the same body object sometimes sent twice. */
function hostileBodies(seed: number, count: number): Body[] {
  const random = mulberry32(seed);
  const histories: Message[][] = [[OPENING], [OPENING]];
  const tools: unknown[][] = [TOOLS.slice(0, 1), TOOLS];
  const bodies: Body[] = [];
  for (let step = 0; step < count; step++) {
    const session = random() < 0.7 ? 0 : 1;
    if (bodies.length > 0 && random() < 0.08) {
      bodies.push(bodies.at(-1)!);
      continue;
    }
    histories[session] = nextHistory(random, histories[session]!, `${seed}.${step}`);
    if (random() < 0.08) tools[session] = tools[session]!.length === 1 ? TOOLS : TOOLS.slice(0, 1);
    bodies.push({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      system: [{ type: 'text', text: `session ${session}` }],
      tools: tools[session],
      messages: histories[session]!,
    });
  }
  return bodies;
}

const copyOf = (body: Body) => JSON.parse(JSON.stringify(body)) as Body;

describe('normalisation with shared, frozen history against plain copies (hostile sequences)', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: units and breaks equal those of unshared copies`, () => {
      const bodies = hostileBodies(seed, 60);
      expect(Math.max(...bodies.map((body) => normalizeAnthropicBody(copyOf(body)).units.length))).toBeGreaterThan(600);
      const shared = [createBreakDetector(), createBreakDetector()];
      const plain = [createBreakDetector(), createBreakDetector()];
      const sharedModel = createAnthropicCacheModel();
      const plainModel = createAnthropicCacheModel();
      for (const [index, body] of bodies.entries()) {
        const copy = copyOf(body);
        expect(normalizeAnthropicBody(body).units, `body ${index}`).toEqual(normalizeAnthropicBody(copy).units);
        const session = (body.system as Array<{ text: string }>)[0]!.text.endsWith('0') ? 0 : 1;
        const context = { at: 1_000 * index };
        expect(shared[session]!.observe(body, context), `body ${index}`).toEqual(plain[session]!.observe(copy, context));
        expect(sharedModel.judge(body, context), `body ${index}`).toEqual(plainModel.judge(copy, context));
      }
    });
  }
});
