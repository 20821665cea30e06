import { isDeepFrozen } from '../../model/freeze.js';
import { blockCore, MARKER_KEYS, systemCore, toolCore } from './anthropic-block-core.js';
import {
  previousContentAt,
  rememberBody,
  rememberMessage,
  repeatedMessage,
  repeatedMessageCount,
  type SessionUnits,
  type SharedMessageUnits,
  sessionUnitsOf,
  unitsWithRepeatedRun,
} from './anthropic-session-units.js';
import { type BlockCoreMemo, cachedCore } from './block-core-memo.js';
import { messageBlockPath } from './block-paths.js';
import { bodyWithUnitList } from './body-units.js';
import { anthropicKeyParams } from './cache-key-params.js';
import { ChunkedList } from './chunked-list.js';
import { isRecord, type JsonRecord, jsonText, stringField, withoutKeys } from './json-helpers.js';
import { type SharedCores, sharedBlockCore } from './shared-block-cores.js';
import { paramUnit, unit, unitOf } from './unit-builders.js';
import { toolCountable } from './wire-countable.js';
import type { NormalizedWireBody, WireTtl, WireUnit } from './wire-unit.js';

/**
 * Fields of an Anthropic body that invalidate the messages level of the cache when they change,
 * on models whose row keeps effort in the key. Per model: `resolveAnthropicModel(model).cacheKeyParams`.
 */
export const ANTHROPIC_MESSAGE_LEVEL_PARAMS = ['tool_choice', 'thinking', 'output_config'] as const;

/** Read a `cache_control` value: `{type:'ephemeral', ttl?:'5m'|'1h'}`. */
export function cacheControlTtl(value: unknown): WireTtl | null {
  if (!isRecord(value) || value.type !== 'ephemeral') return null;
  return value.ttl === '1h' ? '1h' : '5m';
}

/** The images unit's two values, one object each: successive bodies share it. */
const IMAGES_ABSENT = paramUnit('images', jsonText('absent'));
const IMAGES_PRESENT = paramUnit('images', jsonText('present'));

/**
 * The last parameter unit made for each path (the model and the model row's key parameters: a
 * fixed set of paths): successive bodies repeat them, and units are never changed once made, so
 * an equal text takes the same object instead of a new unit per body.
 */
const lastParamUnits = new Map<string, WireUnit>();

function repeatedParamUnit(path: string, text: string): WireUnit {
  const last = lastParamUnits.get(path);
  if (last !== undefined && last.text === text) return last;
  const made = paramUnit(path, text);
  lastParamUnits.set(path, made);
  return made;
}

/**
 * Units of an Anthropic Messages body in the order its cache reads them: `model`, tools,
 * system, the message-level parameters (the model row's `cacheKeyParams`: tool_choice, thinking,
 * effort where it is in the key, and whether images are present, each of which invalidates the
 * messages level), then every content block.
 */
export function normalizeAnthropicBody(body: JsonRecord, memo?: BlockCoreMemo): NormalizedWireBody {
  memo?.begin();
  const warnings: string[] = [];
  const units: WireUnit[] = [];
  const model = stringField(body, 'model') ?? '';
  units.push(repeatedParamUnit('model', jsonText(body.model)));
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const deferred = new Map<string, JsonRecord>();
  tools.forEach((tool, index) => {
    const record = isRecord(tool) ? tool : {};
    // Deferred definitions are not part of the prefix: the model loads them through
    // `tool_reference` blocks in history (platform docs, "Tool use with prompt caching").
    if (record.defer_loading === true) {
      const name = stringField(record, 'name');
      if (name) deferred.set(name, record);
      return;
    }
    const ttl = cacheControlTtl(record.cache_control);
    const core = memo ? memo.core(TOOLS_LIST, index, record, toolCore) : cachedCore(record, toolCore);
    const reused = memo?.reusableUnit(TOOLS_LIST, index, core, null, ttl);
    units.push(keep(memo, TOOLS_LIST, index, reused ?? unitOf('tools', `tools[${index}]`, core, null, null, ttl)));
  });
  if (typeof body.system === 'string') {
    if (body.system.length > 0) {
      units.push(
        unit('system', 'system', jsonText({ type: 'text', text: body.system }), null, null, body.system, undefined, 'text', null),
      );
    }
  } else if (Array.isArray(body.system)) {
    body.system.forEach((block, index) => {
      const record = isRecord(block) ? block : {};
      const ttl = cacheControlTtl(record.cache_control);
      const core = memo ? memo.core(SYSTEM_LIST, index, record, systemCore) : cachedCore(record, systemCore);
      const reused = memo?.reusableUnit(SYSTEM_LIST, index, core, null, ttl);
      units.push(keep(memo, SYSTEM_LIST, index, reused ?? unitOf('system', `system[${index}]`, core, null, null, ttl)));
    });
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const [path, value] of anthropicKeyParams(body, model)) units.push(repeatedParamUnit(path, jsonText(value)));
  // The images unit comes before the messages' units; whether any message has one is learnt in
  // the same pass over the messages (one look-up per message, not two).
  const imagesAt = units.length;
  units.push(IMAGES_ABSENT);
  const session = sessionUnitsOf(messages);
  if (session) return sessionBody({ body, model, units, warnings, deferred, memo, messages, imagesAt, session });
  let image = false;
  const into = { units, warnings, deferred, memo };
  messages.forEach((message, messageIndex) => {
    // Frozen messages take their shared units with or without a memo (`cachet analyze`'s reader freezes the history it reuses).
    image = addMessageUnits(message, messageIndex, sharedMessageUnits(message, messageIndex), into) || image;
  });
  if (image) units[imagesAt] = IMAGES_PRESENT;
  return {
    format: 'anthropic',
    model,
    units,
    automaticBreakpoint: cacheControlTtl(body.cache_control),
    warnings,
    retention: null,
    promptCacheMode: null,
  };
}

/**
 * A session's body (its first message is a shared frozen array): the messages that repeat the
 * session's last body at the same indexes are its units up to one index, their storage shared
 * with the last body's list (nothing copied per unit of history); the rest are read one by one. Records for later passes how many leading units the two share.
 */
function sessionBody(read: {
  body: JsonRecord;
  model: string;
  units: WireUnit[];
  warnings: string[];
  deferred: ReadonlyMap<string, JsonRecord>;
  memo: BlockCoreMemo | undefined;
  messages: readonly unknown[];
  imagesAt: number;
  session: SessionUnits;
}): NormalizedWireBody {
  const { warnings, deferred, memo, messages, imagesAt, session } = read;
  const leading = read.units.length;
  const repeated = repeatedMessageCount(session, messages, leading);
  let image = session.firstImage < repeated;
  // What the repeated run says of images; a later message with one changes it below.
  read.units[imagesAt] = image ? IMAGES_PRESENT : IMAGES_ABSENT;
  const run = unitsWithRepeatedRun(session, read.units, repeated, messages.length);
  for (const index of session.warned) {
    if (index >= repeated) break;
    for (const warning of session.shared[index]!.warnings) warnings.push(warning);
  }
  const fields = {
    format: 'anthropic' as const,
    model: read.model,
    automaticBreakpoint: cacheControlTtl(read.body.cache_control),
    warnings,
    retention: null,
    promptCacheMode: null,
  };
  if (run.units instanceof ChunkedList) {
    // The last body again (`unitsWithRepeatedRun`): nothing left to read.
    rememberBody(session, { ...run, units: run.units, leading, from: repeated, starts: [run.units.length], messages });
    return bodyWithUnitList(fields, run.units);
  }
  const units = run.units;
  const starts: number[] = [];
  const into = { units, warnings, deferred, memo };
  for (let messageIndex = repeated; messageIndex < messages.length; messageIndex++) {
    const message = messages[messageIndex];
    starts.push(units.length);
    const sharedUnits = sharedMessageUnitsAt(session, message, messageIndex);
    image = addMessageUnits(message, messageIndex, sharedUnits, into) || image;
  }
  starts.push(units.length);
  let shared = run.shared;
  if (image && units.at(imagesAt) !== IMAGES_PRESENT) {
    units.set(imagesAt, IMAGES_PRESENT);
    shared = Math.min(shared, imagesAt);
  }
  const list = units.done();
  rememberBody(session, { units: list, shared, sameFrom: run.sameFrom, leading, from: repeated, starts, messages });
  return bodyWithUnitList(fields, list);
}

/** Where a message's units go: the body's array, or its list being built. */
interface UnitSink {
  push(unit: WireUnit): void;
}

/** One message's units and warnings appended to `into`: its shared ones when it has them. Whether it holds an image. */
function addMessageUnits(
  message: unknown,
  messageIndex: number,
  shared: SharedMessageUnits | null,
  into: { units: UnitSink; warnings: string[]; deferred: ReadonlyMap<string, JsonRecord>; memo: BlockCoreMemo | undefined },
): boolean {
  if (shared) {
    for (const sharedUnit of shared.units) into.units.push(sharedUnit);
    for (const warning of shared.warnings) into.warnings.push(warning);
    return shared.image;
  }
  messageUnits(message, messageIndex, into);
  return containsImage(message);
}

/** Where one message's units go and what they are read with (`shared`: a frozen content's, see `sharedBlockCore`). */
interface MessageSink {
  units: UnitSink;
  warnings: string[];
  deferred: ReadonlyMap<string, JsonRecord>;
  memo: BlockCoreMemo | undefined;
  shared?: SharedCores;
}

/** One message's units (and marker warnings) appended to `into`. */
function messageUnits(message: unknown, messageIndex: number, into: MessageSink): void {
  const { units, warnings, deferred, memo } = into;
  const record = isRecord(message) ? message : {};
  const role = stringField(record, 'role') ?? 'user';
  const content = record.content;
  if (typeof content === 'string') {
    units.push(
      unit(
        'messages',
        `messages[${messageIndex}].content`,
        jsonText({ type: 'text', text: content }),
        role,
        messageIndex,
        content,
        undefined,
        'text',
        null,
      ),
    );
    return;
  }
  if (!Array.isArray(content)) return;
  content.forEach((block, blockIndex) => {
    const blockRecord = isRecord(block) ? block : {};
    const ttl = cacheControlTtl(blockRecord.cache_control);
    const list = FIRST_MESSAGE_LIST + messageIndex;
    const core = memo
      ? memo.core(list, blockIndex, blockRecord, blockCore)
      : into.shared
        ? sharedBlockCore(blockRecord, blockIndex, into.shared)
        : cachedCore(blockRecord, blockCore);
    const reused = memo?.reusableUnit(list, blockIndex, core, role, ttl);
    const blockUnit = keep(
      memo,
      list,
      blockIndex,
      reused ?? unitOf('messages', messageBlockPath(messageIndex, blockIndex), core, role, messageIndex, ttl),
    );
    if (ttl && (blockUnit.kind === 'thinking' || (blockUnit.kind === 'text' && blockUnit.tokenText.length === 0))) {
      warnings.push(
        `${blockUnit.path}: cache_control is not allowed on ${blockUnit.kind === 'thinking' ? 'thinking' : 'empty text'} blocks (the API rejects it)`,
      );
    }
    units.push(blockUnit);
    if (blockRecord.type === 'tool_result') {
      for (const reference of toolReferenceUnits(blockRecord, blockUnit.path, role, messageIndex, deferred))
        units.push(reference);
    }
  });
}

/**
 * Units of messages whose content is a frozen array of frozen blocks (the Anthropic converter
 * shares one such array per persisted message between every body that sends it), by content
 * array: the same unit objects for every body that sends the message at the same index, so a
 * long history costs a pointer per unit, and later passes can compare units by identity.
 * Contents with tool references are not kept: their units depend on the body's deferred tools.
 */
const sharedUnits = new WeakMap<readonly unknown[], SharedMessageUnits | null>();
const NO_WARNINGS: readonly string[] = Object.freeze([]);

function sharedMessageUnits(
  message: unknown,
  messageIndex: number,
  previousContent?: readonly unknown[],
): SharedMessageUnits | null {
  if (!isRecord(message) || !Array.isArray(message.content) || !Object.isFrozen(message.content)) return null;
  const content = message.content as readonly unknown[];
  const role = stringField(message, 'role') ?? 'user';
  const known = sharedUnits.get(content);
  if (known !== undefined && (known === null || (known.messageIndex === messageIndex && known.role === role))) return known;
  if (known === null) return null;
  // The same content at another index or with another role: its blocks' cores are its units'.
  const keepable = content.every((block) => isDeepFrozen(block) && !hasToolReference(block));
  if (!keepable) {
    sharedUnits.set(content, null);
    return null;
  }
  const units: WireUnit[] = [];
  const warnings: string[] = [];
  const previous = previousContent === undefined ? undefined : sharedUnits.get(previousContent);
  const cores: SharedCores = {
    same: known?.units,
    previousContent: previous ? previousContent : undefined,
    previous: previous?.units,
  };
  messageUnits(message, messageIndex, { units, warnings, deferred: new Map(), memo: undefined, shared: cores });
  const image = containsImage(message);
  // Kept as long as the message: its units in an array of their own size (one grown by `push`
  // reserves 17 slots), and most messages draw no warning, so they share one empty list.
  const shared = { messageIndex, role, units: units.slice(), warnings: warnings.length > 0 ? warnings : NO_WARNINGS, image };
  sharedUnits.set(content, shared);
  return shared;
}

/** `sharedMessageUnits` through the session's memo: a message the last body sent at the same index costs one comparison. */
function sharedMessageUnitsAt(session: SessionUnits, message: unknown, messageIndex: number): SharedMessageUnits | null {
  const before = repeatedMessage(session, message, messageIndex);
  if (before) return before;
  const shared = sharedMessageUnits(message, messageIndex, previousContentAt(session, messageIndex));
  rememberMessage(session, message, messageIndex, shared);
  return shared;
}

function hasToolReference(block: unknown): boolean {
  return (
    isRecord(block) &&
    block.type === 'tool_result' &&
    Array.isArray(block.content) &&
    block.content.some((part) => isRecord(part) && part.type === 'tool_reference')
  );
}

/** The memo's lists: tools, system, then one per message. */
const TOOLS_LIST = 0;
const SYSTEM_LIST = 1;
const FIRST_MESSAGE_LIST = 2;

/** `unit`, remembered by the memo (when there is one) for the next body. */
function keep(memo: BlockCoreMemo | undefined, list: number, index: number, unit: WireUnit): WireUnit {
  return memo ? memo.keepUnit(list, index, unit) : unit;
}

/**
 * A `tool_reference` in a tool result expands, in the prompt, to the referenced deferred tool's
 * definition at that place in history: each is a unit counted as that definition (inside the
 * block, so not a breakpoint position of its own).
 */
function toolReferenceUnits(
  block: JsonRecord,
  path: string,
  role: string,
  messageIndex: number,
  deferred: ReadonlyMap<string, JsonRecord>,
): WireUnit[] {
  if (block.type !== 'tool_result' || !Array.isArray(block.content)) return [];
  return block.content.flatMap((part, index) => {
    if (!isRecord(part) || part.type !== 'tool_reference') return [];
    const name = stringField(part, 'tool_name') ?? '';
    const definition = deferred.get(name);
    const text = jsonText(definition ? withoutKeys(definition, [...MARKER_KEYS, 'defer_loading']) : part);
    const referencePath = `${path}.content[${index}]`;
    return [
      {
        ...unit('messages', referencePath, text, role, messageIndex, text, 'json', 'tool', null, false),
        countable: definition ? toolCountable(definition) : null,
      },
    ];
  });
}

function containsImage(message: unknown): boolean {
  if (!isRecord(message) || !Array.isArray(message.content)) return false;
  const shared = sharedUnits.get(message.content);
  if (shared) return shared.image;
  return message.content.some(
    (block) =>
      isRecord(block) &&
      (block.type === 'image' ||
        (block.type === 'tool_result' &&
          Array.isArray(block.content) &&
          block.content.some((part) => isRecord(part) && part.type === 'image'))),
  );
}

export { paramUnit as wireParamUnit, unit as wireUnit };
