import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import type { Message } from '../../model/content.js';
import { ValidationError } from '../../model/errors.js';
import type { CanonicalRequest, TailItem, Zone } from '../../model/request.js';
import { requestMessageSource, requestReader } from '../../model/request-view.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { tailNeedsUserMessage } from '../shared/tail-user-message.js';
import { convertPersistedBlock, textBlock } from './convert-blocks.js';
import { historyRunFor } from './history-run.js';
import type { BreakpointSlot } from './place-breakpoints.js';
import type { Markable, RecordLookup, SlotList } from './slot-list.js';
import { hasMarkerFindings } from './validate-breakpoints.js';

/** One block of a message template: what its slot holds apart from the position and prefix hash. */
interface TemplateBlock {
  path: string;
  /** Index in the template's content (dropped thinking blocks have none). */
  contentIndex: number;
  cacheable: boolean;
  tokens: number;
  /** The slot the last request built for this block, reused while its position and prefix hash hold. */
  slot: BreakpointSlot | null;
}

/**
 * A persisted (frozen) message converted once: its wire content as one frozen array shared by
 * every body that sends the message at this index, and its blocks' slot data. A session sends the
 * same history on every request; converting each message once makes the converter's work per
 * request a pointer per message and a slot per block instead of a conversion, a path and a count
 * per block. Bodies share the array: a breakpoint goes on a copy (`SlotList.mark`).
 */
interface MessageTemplate {
  message: Message;
  messageIndex: number;
  zone: Zone;
  counter: TokenCounter;
  content: readonly ContentBlockParam[];
  blocks: TemplateBlock[];
  warnings: readonly AdapterWarning[];
  /** The message on the wire (`{ role, content }`), frozen and shared like its content. */
  wire: MessageParam;
  /** No marker and nothing the breakpoint validator reports: bodies skip it there until it is marked. */
  markerFree: boolean;
}

const templates = new WeakMap<Message, MessageTemplate>();
const NO_TAIL: readonly TailItem[] = [];
/**
 * Templates by message index for each shared message array (a session's history, see
 * `requestMessageSource`): one lookup per request, then an array read per message instead of a
 * WeakMap lookup per message.
 */
const templatesBySource = new WeakMap<readonly Message[], MessageTemplate[]>();

/** The request's messages on the wire, each block a slot of `list`; the turn tail goes in the last user message. */
export function convertMessages(
  request: CanonicalRequest,
  tail: readonly TailItem[],
  list: SlotList,
  records: RecordLookup,
  warnings: AdapterWarning[],
  counter: TokenCounter,
): MessageParam[] {
  const reader = requestReader(request);
  const last = reader.messageCount - 1;
  const byIndex = templatesFor(requestMessageSource(request));
  // History converted by earlier requests comes in one piece; the last message never does (it may carry the tail).
  const run = historyRunFor(request, list, records, counter);
  const messages: MessageParam[] = run ? run.cover(last, list, records, warnings) : [];
  list.wireMessages = messages;
  const covered = messages.length;
  for (let messageIndex = covered; messageIndex <= last; messageIndex++) {
    const message = reader.messageAt(messageIndex) as Message;
    const zone: Zone = messageIndex < request.layout.sessionMessageCount ? 'session' : 'history';
    const withTail = messageIndex === last && message.role === 'user' ? tail : NO_TAIL;
    const template =
      withTail.length === 0 && Object.isFrozen(message) ? templateOf(message, messageIndex, zone, counter, byIndex) : null;
    if (!template?.markerFree) list.messagesToValidate.push(messageIndex);
    const slotStart = list.slots.length;
    const content = template
      ? sharedContent(template, list, records, warnings)
      : convertMessageContent(message, messageIndex, zone, withTail, list, records, warnings);
    if (template && run && messageIndex < last) run.extend(messageIndex, template, list, slotStart);
    if (content.length === 0) {
      throw new ValidationError(
        `messages[${messageIndex}].content`,
        'at least one block the Messages API accepts',
        'only unsigned thinking',
      );
    }
    messages.push(template ? template.wire : { role: message.role, content: content as ContentBlockParam[] });
  }
  const lastMessage = reader.messageAt(last);
  if (tailNeedsUserMessage(lastMessage ? [lastMessage] : [], tail.length, warnings)) {
    const content: ContentBlockParam[] = [];
    addTail(tail, content, list);
    list.messagesToValidate.push(messages.length);
    messages.push({ role: 'user', content });
  }
  return messages;
}

function templatesFor(source: readonly Message[] | null): MessageTemplate[] | null {
  if (source === null) return null;
  let byIndex = templatesBySource.get(source);
  if (!byIndex) {
    byIndex = [];
    templatesBySource.set(source, byIndex);
  }
  return byIndex;
}

/** The message's template at this index and zone, built on first use (again if index, zone or counter differ). */
function templateOf(
  message: Message,
  messageIndex: number,
  zone: Zone,
  counter: TokenCounter,
  byIndex: MessageTemplate[] | null,
): MessageTemplate {
  const atIndex = byIndex?.[messageIndex];
  if (atIndex && atIndex.message === message && atIndex.zone === zone && atIndex.counter === counter) return atIndex;
  const known = templates.get(message);
  if (known && known.messageIndex === messageIndex && known.zone === zone && known.counter === counter) {
    if (byIndex) byIndex[messageIndex] = known;
    return known;
  }
  const content: ContentBlockParam[] = [];
  const blocks: TemplateBlock[] = [];
  const warnings: AdapterWarning[] = [];
  message.content.forEach((block, blockIndex) => {
    const path = `messages[${messageIndex}].content[${blockIndex}]`;
    const wire = wireBlockOrWarning(block, path, warnings);
    if (wire === null) return;
    content.push(wire);
    blocks.push({
      path,
      contentIndex: content.length - 1,
      cacheable: isCacheable(block),
      tokens: counter.countBlock(block),
      slot: null,
    });
  });
  const frozen = Object.freeze(content);
  const template = {
    message,
    messageIndex,
    zone,
    counter,
    content: frozen,
    blocks,
    warnings,
    wire: Object.freeze({ role: message.role, content: frozen as ContentBlockParam[] }),
    markerFree: !hasMarkerFindings(content),
  };
  templates.set(message, template);
  if (byIndex) byIndex[messageIndex] = template;
  return template;
}

/** A template's blocks added to `list` (slots reused where position and prefix hash match): its shared content. */
function sharedContent(
  template: MessageTemplate,
  list: SlotList,
  records: RecordLookup,
  warnings: AdapterWarning[],
): readonly ContentBlockParam[] {
  for (const warning of template.warnings) warnings.push(warning);
  for (const block of template.blocks) {
    const prefixHash = records.get(block.path)?.prefixHash ?? null;
    const position = list.slots.length;
    let slot = block.slot;
    if (slot === null || slot.position !== position || slot.prefixHash !== prefixHash) {
      slot = {
        path: block.path,
        zone: template.zone,
        messageIndex: template.messageIndex,
        prefixHash,
        cacheable: block.cacheable,
        tokens: block.tokens,
        position,
      };
      block.slot = slot;
    }
    list.addShared(template.content[block.contentIndex] as Markable, slot, block.contentIndex);
  }
  return template.content;
}

function isCacheable(block: Message['content'][number]): boolean {
  return block.type !== 'thinking' && block.type !== 'redacted_thinking' && !(block.type === 'text' && block.text === '');
}

/** The block on the wire; null, with a warning added, for an unsigned thinking block the API would refuse. */
function wireBlockOrWarning(
  block: Message['content'][number],
  path: string,
  warnings: AdapterWarning[],
): ContentBlockParam | null {
  const wire = convertPersistedBlock(block, path);
  if (wire === null) {
    warnings.push(
      adapterWarning(
        'thinking-not-sent',
        `${path}: unsigned thinking block dropped (the Messages API requires a signature)`,
        path,
      ),
    );
  }
  return wire;
}

function convertMessageContent(
  message: Message,
  messageIndex: number,
  zone: Zone,
  tail: readonly TailItem[],
  list: SlotList,
  records: RecordLookup,
  warnings: AdapterWarning[],
): ContentBlockParam[] {
  const content: ContentBlockParam[] = [];
  const beforeText = tail.filter((item) => item.position === 'before-user-text');
  const atEnd = tail.filter((item) => item.position === 'end');
  const firstText = message.content.findIndex((block) => block.type === 'text');
  message.content.forEach((block, blockIndex) => {
    if (blockIndex === firstText) addTail(beforeText, content, list, tail);
    const path = `messages[${messageIndex}].content[${blockIndex}]`;
    const wire = wireBlockOrWarning(block, path, warnings);
    if (wire === null) return;
    content.push(wire);
    list.add(
      wire as Markable,
      {
        path,
        zone,
        messageIndex,
        prefixHash: records.get(path)?.prefixHash ?? null,
        cacheable: isCacheable(block),
        tokens: list.count(block),
      },
      { array: content, index: content.length - 1 },
    );
  });
  if (firstText === -1) addTail(beforeText, content, list, tail);
  addTail(atEnd, content, list, tail);
  return content;
}

/** Tail items as text blocks; paths index the request's tail items (`tail[k]`). */
export function addTail(
  items: readonly TailItem[],
  content: ContentBlockParam[],
  list: SlotList,
  all: readonly TailItem[] = items,
): void {
  for (const item of items) {
    const wire = textBlock(item.text);
    content.push(wire);
    list.add(wire, {
      path: `tail[${all.indexOf(item)}]`,
      zone: 'tail',
      messageIndex: null,
      prefixHash: null,
      cacheable: item.text.length > 0,
      tokens: list.count(item),
    });
  }
}
