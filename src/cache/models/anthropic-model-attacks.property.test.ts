import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../model/freeze.js';
import { propertyRuns } from '../../model/test-support/property-runs.js';
import { normalizeWireBody } from '../wire/normalize-wire-body.js';
import { type NormalizedWireBody, unitIdentity } from '../wire/wire-unit.js';
import { createAnthropicCacheModel } from './anthropic-cache-model.js';
import type { CacheModel, CacheVerdict } from './cache-verdict.js';

/**
 * Attacks on the Anthropic cache model's fast paths (normalisation's session memo, the
 * per-conversation breakpoint-scan memo, the token-total and prefix-hash histories, the block
 * memo, lazily built explanations): over seeded hostile sequences of several conversations fed
 * to one model, interleaved, every verdict must equal the verdict of a model fed plain JSON
 * copies of the same bodies, where nothing is frozen, shared or remembered between bodies. The
 * fast side's verdicts are read only after the whole sequence was judged (an explanation built
 * late must say what it said when the request was judged); the plain side's at once.
 *
 * The sequences interleave conversations opening with the same frozen message, append (across
 * a 64-unit chunk), edit mid-history, rewind, send the same body object again, the same
 * array in a new body, a byte-for-byte copy, move the newest marker, add 1-hour markers in the
 * history (rejections included), switch automatic caching, change system and tools, let the
 * clock run past 5 minutes and 1 hour, and fork the model.
 */

type Block = Readonly<Record<string, unknown>>;
type Message = Readonly<{ role: 'user' | 'assistant'; content: readonly Block[] }>;

const OPENING: Message = deepFreeze({ role: 'user', content: [{ type: 'text', text: `Begin. ${'setup '.repeat(300)}` }] });

const role = (index: number): Message['role'] => (index % 2 === 0 ? 'user' : 'assistant');

function messageOf(index: number, tag: string, size: number, ttl: '5m' | '1h' | null = null): Message {
  const text = `${tag} ${'word '.repeat(size)}`;
  const marker = ttl === null ? {} : { cache_control: ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' } };
  const content: Record<string, unknown>[] =
    index % 4 === 1
      ? [
          { type: 'text', text },
          { type: 'tool_use', id: `t${tag}`, name: 'read', input: { path: tag }, ...marker },
        ]
      : index % 4 === 2
        ? [{ type: 'tool_result', tool_use_id: `t${tag}`, content: [{ type: 'text', text }], ...marker }]
        : [{ type: 'text', text, ...marker }];
  return deepFreeze({ role: role(index), content });
}

/**
 * A copy of a message with a 5-minute marker on its last block: a client's newest message. Fresh
 * (not frozen) as a library caller's, or deep-frozen as a parsed capture's or proxy body's (the
 * next body then sends the frozen original without the marker: the marker-moved core path).
 */
function markedCopy(message: Message, frozen: boolean): Record<string, unknown> {
  const content = message.content.map((block) => ({ ...block }));
  content[content.length - 1]!.cache_control = { type: 'ephemeral' };
  const copy = { role: message.role, content };
  return frozen ? deepFreeze(copy) : copy;
}

interface Conversation {
  id: number;
  history: Message[];
  markNewest: boolean;
  automatic: boolean;
  system: number;
  /** The system block's marker: 1 hour, 5 minutes, none. */
  systemMarker: number;
  tools: boolean;
  last: Record<string, unknown> | null;
}

const SYSTEM_MARKERS = [{ cache_control: { type: 'ephemeral', ttl: '1h' } }, { cache_control: { type: 'ephemeral' } }, {}];

function bodyOf(conversation: Conversation): Record<string, unknown> {
  const { history } = conversation;
  const messages: unknown[] = history.slice();
  if (conversation.markNewest) messages[messages.length - 1] = markedCopy(history.at(-1)!, conversation.id === 1);
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    ...(conversation.automatic ? { cache_control: { type: 'ephemeral' } } : {}),
    system: [
      {
        type: 'text',
        text: `system ${conversation.system} ${'rule '.repeat(1200)}`,
        ...SYSTEM_MARKERS[conversation.systemMarker % 3],
      },
    ],
    ...(conversation.tools ? { tools: [{ name: 'read', description: 'Reads a file.', input_schema: { type: 'object' } }] } : {}),
    messages,
  };
}

/** One step: [kind, conversation, a number the kind reads]. */
type Step = [number, number, number];

const GAPS_MS = [1_000, 30_000, 4 * 60_000, 6 * 60_000, 61 * 60_000];

/** The body a step sends (or null for a step that only changes the model or the clock). */
function applyStep(conversation: Conversation, [kind, , value]: Step, tag: string): Record<string, unknown> | 'fork' | null {
  const { history } = conversation;
  switch (kind) {
    case 0:
    case 1: {
      // Append 1–3 messages, or many (kind 1, crossing 64-unit chunks).
      const count = kind === 0 ? 1 + (value % 3) : 60 + (value % 200);
      for (let index = 0; index < count; index++)
        history.push(messageOf(history.length, `${tag}.${index}`, 20 + (value % 7) * 40));
      break;
    }
    case 2: {
      const at = 1 + (value % Math.max(1, history.length - 1));
      if (at < history.length) history[at] = messageOf(at, `${tag}.edited`, 30);
      break;
    }
    case 3:
      history.length = Math.max(1, history.length - 1 - (value % history.length));
      break;
    case 4:
      if (conversation.last) return conversation.last;
      break;
    case 5:
      if (conversation.last) return { ...conversation.last };
      break;
    case 6:
      if (conversation.last) return JSON.parse(JSON.stringify(conversation.last)) as Record<string, unknown>;
      break;
    case 7: {
      // A 1-hour marker kept in the history (a 5-minute one before it makes the body rejected).
      const at = value % history.length;
      const message = history[at]!;
      const content = message.content.map((block) => ({ ...block }));
      content[0]!.cache_control = value % 3 === 0 ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: '1h' };
      history[at] = deepFreeze({ role: message.role, content });
      break;
    }
    case 8:
      conversation.markNewest = !conversation.markNewest;
      break;
    case 9:
      conversation.automatic = !conversation.automatic;
      break;
    case 10:
      if (value % 3 === 0) conversation.system++;
      else if (value % 3 === 1) conversation.systemMarker++;
      else conversation.tools = !conversation.tools;
      break;
    case 11:
      return null;
    case 12:
      return 'fork';
    default: {
      // The caller edits the array it sent in place: sends it again (kind 13) or a new array holding the edit (kind 14).
      const last = conversation.last;
      if (!last) break;
      const messages = last.messages as unknown[];
      const at = value % messages.length;
      const edited = messageOf(at, `${tag}.in-place`, 25);
      messages[at] = edited;
      history[at] = edited;
      if (kind === 13) return value % 2 === 0 ? last : { ...last };
      history.push(messageOf(history.length, `${tag}.after`, 25));
    }
  }
  conversation.last = bodyOf(conversation);
  return conversation.last;
}

const stepArbitrary = fc.tuple(fc.nat({ max: 14 }), fc.nat({ max: 2 }), fc.nat({ max: 1_000 }));

function freshConversations(): Conversation[] {
  return [0, 1, 2].map((id) => ({
    id,
    history: [OPENING],
    markNewest: true,
    automatic: false,
    system: id === 2 ? 1 : 0,
    systemMarker: 0,
    tools: false,
    last: null,
  }));
}

/** Runs the steps on a fast model and on a plain one; the fast verdicts, and the plain ones as JSON read at once. */
/**
 * Plays `steps` on fresh conversations: `fork` at each fork step, `judge` with each body sent and
 * its time (one second after the step before, or after the gap a clock step names).
 */
function playSteps(steps: readonly Step[], on: { fork: () => void; judge: (body: Record<string, unknown>, at: number) => void }) {
  const conversations = freshConversations();
  let at = Date.UTC(2026, 10, 28);
  for (const [index, step] of steps.entries()) {
    const body = applyStep(conversations[step[1]]!, step, `c${step[1]}.s${index}`);
    if (body === 'fork') {
      on.fork();
      continue;
    }
    if (body === null) {
      at += GAPS_MS[step[2] % GAPS_MS.length]!;
      continue;
    }
    at += 1_000;
    on.judge(body, at);
  }
}

function judgeBoth(steps: readonly Step[], fast: () => CacheModel): { fastVerdicts: CacheVerdict[]; plainJson: string[] } {
  let fastModel = fast();
  let plainModel = createAnthropicCacheModel();
  const fastVerdicts: CacheVerdict[] = [];
  const plainJson: string[] = [];
  playSteps(steps, {
    fork: () => {
      fastModel = fastModel.fork!();
      plainModel = plainModel.fork!();
    },
    judge: (body, at) => {
      const copy = JSON.parse(JSON.stringify(body)) as unknown;
      fastVerdicts.push(fastModel.judge(body, { at }));
      plainJson.push(JSON.stringify(plainModel.judge(copy, { at })));
    },
  });
  return { fastVerdicts, plainJson };
}

const EXAMPLES: Step[][] = [
  // Two conversations with the same opening, interleaved; one grows past a chunk, rewinds, and repeats its body.
  [
    [0, 0, 1],
    [0, 1, 1],
    [1, 0, 400],
    [0, 1, 2],
    [3, 0, 7],
    [4, 0, 0],
    [0, 0, 0],
    [10, 0, 1],
    [0, 0, 1],
    [5, 1, 0],
    [6, 0, 0],
    [2, 0, 5],
    [4, 0, 0],
  ],
  // 1-hour markers in the history, automatic caching, the clock past both lifetimes, a fork.
  [
    [1, 0, 100],
    [7, 0, 4],
    [0, 0, 0],
    [9, 0, 0],
    [11, 0, 3],
    [0, 0, 1],
    [12, 0, 0],
    [0, 0, 2],
    [11, 0, 4],
    [8, 0, 0],
    [0, 0, 0],
    [7, 0, 3],
    [0, 0, 0],
  ],
  // The system block's marker changes (the units before the messages are rebuilt per body), then everything expires.
  [
    [1, 0, 10],
    [10, 0, 1],
    [11, 0, 4],
    [0, 0, 0],
    [10, 0, 1],
    [11, 0, 4],
    [0, 0, 0],
    [10, 0, 4],
    [0, 0, 0],
  ],
  // The caller's array edited in place: sent again as it is, in a new body, and as a new array holding the edit.
  [
    [0, 0, 2],
    [0, 0, 2],
    [13, 0, 2],
    [0, 1, 2],
    [13, 0, 3],
    [0, 0, 1],
    [14, 0, 1],
    [0, 0, 0],
  ],
];

describe('the Anthropic cache model with its memos against plain copies (hostile interleaved sequences)', () => {
  for (const [name, fast] of [
    ['default options', () => createAnthropicCacheModel()],
    ['reuseEqualBlocks', () => createAnthropicCacheModel({ reuseEqualBlocks: true })],
  ] as const) {
    it(`${name}: every verdict, read after the whole sequence, equals the plain model's read at once`, () => {
      fc.assert(
        fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 40 }), (steps) => {
          const { fastVerdicts, plainJson } = judgeBoth(steps, fast);
          expect(fastVerdicts.map((verdict) => JSON.stringify(verdict))).toEqual(plainJson);
        }),
        { numRuns: propertyRuns(25), examples: EXAMPLES.map((steps) => [steps]) },
      );
    });
  }
});

/** What a reader of a normalisation compares (the emulator's fingerprint, the break watch, the miss cause). */
function unitsSeen(normalized: NormalizedWireBody) {
  return {
    format: normalized.format,
    model: normalized.model,
    automaticBreakpoint: normalized.automaticBreakpoint,
    units: normalized.units.map((unit) => [
      unit.zone,
      unit.path,
      unitIdentity(unit),
      unit.messageIndex,
      unit.breakpoint,
      unit.kind,
    ]),
  };
}

describe('the normalisation a model hands its caller (onNormalized) against a fresh one', () => {
  for (const [name, fast] of [
    ['default options', () => createAnthropicCacheModel()],
    ['reuseEqualBlocks', () => createAnthropicCacheModel({ reuseEqualBlocks: true })],
  ] as const) {
    it(`${name}: each body's normalisation, read after the whole sequence, equals a fresh one of its JSON copy`, () => {
      fc.assert(
        fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 40 }), (steps) => {
          let model = fast();
          const handed: NormalizedWireBody[] = [];
          const fresh: ReturnType<typeof unitsSeen>[] = [];
          playSteps(steps, {
            fork: () => {
              model = model.fork!();
            },
            judge: (body, at) => {
              fresh.push(unitsSeen(normalizeWireBody(JSON.parse(JSON.stringify(body)), 'anthropic')));
              model.judge(body, { at, onNormalized: (normalized) => handed.push(normalized) });
              expect(unitsSeen(handed.at(-1)!)).toEqual(fresh.at(-1));
            },
          });
          // Read again once every later body was judged: nothing the model reuses was changed under an earlier reader.
          expect(handed.map(unitsSeen)).toEqual(fresh);
        }),
        { numRuns: propertyRuns(25), examples: EXAMPLES.map((steps) => [steps]) },
      );
    });
  }
});
