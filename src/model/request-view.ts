import type { Message } from './content.js';
import type { BlockRecord, CanonicalRequest } from './request.js';

/**
 * What a request's `messages` and `blocks` are made of before anyone reads them: a prefix of
 * two append-only arrays the session shares between requests, and the request's own tail
 * records. A session never changes an entry of those arrays below a length it has handed out
 * (it starts a new array instead), so `(source, length)` is an immutable snapshot.
 */
export interface RequestParts {
  messageSource: readonly Message[];
  messageCount: number;
  blockSource: readonly BlockRecord[];
  persistedBlockCount: number;
  tailBlocks: readonly BlockRecord[];
}

interface LiveParts extends RequestParts {
  /** False once `messages` is a data property (read or assigned): it is the truth from then on. */
  messagesShared: boolean;
  blocksShared: boolean;
}

/** The snapshot of each lazily built request whose `messages` and `blocks` were never replaced. */
const partsOf = new WeakMap<object, LiveParts>();

type EagerFields = Omit<CanonicalRequest, 'messages' | 'blocks' | 'deferredTools'>;

/**
 * A request whose `messages` and `blocks` arrays are copied out of the shared snapshot only
 * when read. Copying the whole history on every request costs work proportional to the
 * session's length (and, past ~16k entries, a large-object allocation per array); the hot
 * paths (token counting) read single entries through `requestBlockAt` and `requestMessageAt`
 * instead. Reading or assigning either property turns it into a plain data property; the
 * object's keys keep the order of an eagerly built request.
 */
export function lazyRequest(
  fields: EagerFields,
  parts: RequestParts,
  deferredTools: CanonicalRequest['deferredTools'],
): CanonicalRequest {
  const live: LiveParts = { ...parts, messagesShared: true, blocksShared: true };
  const materialise = (target: object, key: 'messages' | 'blocks', value: unknown) => {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
    if (key === 'messages') live.messagesShared = false;
    else live.blocksShared = false;
  };
  const request = {
    sessionId: fields.sessionId,
    model: fields.model,
    tools: fields.tools,
    system: fields.system,
    get messages(): Message[] {
      const value = parts.messageSource.slice(0, parts.messageCount);
      materialise(this, 'messages', value);
      return value;
    },
    set messages(value: Message[]) {
      materialise(this, 'messages', value);
    },
    tail: fields.tail,
    params: fields.params,
    layout: fields.layout,
    get blocks(): BlockRecord[] {
      const value = parts.blockSource.slice(0, parts.persistedBlockCount);
      for (const record of parts.tailBlocks) value.push(record);
      materialise(this, 'blocks', value);
      return value;
    },
    set blocks(value: BlockRecord[]) {
      materialise(this, 'blocks', value);
    },
    ...(deferredTools ? { deferredTools } : {}),
  };
  partsOf.set(request, live);
  return request;
}

/** Number of block records of a request, without copying its blocks. */
export function requestBlockCount(request: CanonicalRequest): number {
  const parts = partsOf.get(request);
  return parts?.blocksShared ? parts.persistedBlockCount + parts.tailBlocks.length : request.blocks.length;
}

/** The block record at `index` of a request, without copying its blocks. */
export function requestBlockAt(request: CanonicalRequest, index: number): BlockRecord | undefined {
  const parts = partsOf.get(request);
  if (!parts?.blocksShared) return request.blocks[index];
  if (index < 0) return undefined;
  return index < parts.persistedBlockCount ? parts.blockSource[index] : parts.tailBlocks[index - parts.persistedBlockCount];
}

/** Number of messages of a request, without copying them. */
export function requestMessageCount(request: CanonicalRequest): number {
  const parts = partsOf.get(request);
  return parts?.messagesShared ? parts.messageCount : request.messages.length;
}

/** The message at `index` of a request, without copying its messages. */
export function requestMessageAt(request: CanonicalRequest, index: number): Message | undefined {
  const parts = partsOf.get(request);
  if (!parts?.messagesShared) return request.messages[index];
  return index >= 0 && index < parts.messageCount ? parts.messageSource[index] : undefined;
}

/**
 * The shared append-only array a lazily built request's messages are a prefix of (null once its
 * `messages` were read or replaced). Entries below the request's message count never change, so
 * a converter can keep per-index work for the array across the session's requests.
 */
export function requestMessageSource(request: CanonicalRequest): readonly Message[] | null {
  const parts = partsOf.get(request);
  return parts?.messagesShared ? parts.messageSource : null;
}

/** The shared append-only array a lazily built request's persisted block records are a prefix of (null once `blocks` was read or replaced). */
export function requestBlockSource(request: CanonicalRequest): readonly BlockRecord[] | null {
  const parts = partsOf.get(request);
  return parts?.blocksShared ? parts.blockSource : null;
}

/**
 * `requestBlockAt` and `requestMessageAt` bound to one request: the request's snapshot is looked
 * up once, for loops that read every entry.
 */
export function requestReader(request: CanonicalRequest): {
  blockAt(index: number): BlockRecord | undefined;
  messageCount: number;
  messageAt(index: number): Message | undefined;
} {
  const parts = partsOf.get(request);
  const shared = parts?.blocksShared ? parts : null;
  const sharedMessages = parts?.messagesShared ? parts : null;
  const blocks = shared ? null : request.blocks;
  const messages = sharedMessages ? null : request.messages;
  return {
    blockAt(index) {
      if (!shared) return blocks?.[index];
      if (index < 0) return undefined;
      return index < shared.persistedBlockCount
        ? shared.blockSource[index]
        : shared.tailBlocks[index - shared.persistedBlockCount];
    },
    messageCount: sharedMessages ? sharedMessages.messageCount : (messages?.length ?? 0),
    messageAt(index) {
      if (!sharedMessages) return messages?.[index];
      return index >= 0 && index < sharedMessages.messageCount ? sharedMessages.messageSource[index] : undefined;
    },
  };
}
