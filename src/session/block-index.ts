import type { Message, ToolDefinition } from '../model/content.js';
import { chainHash, EMPTY_PREFIX_HASH, hashOf } from '../model/hash.js';
import type { BlockRecord, SystemSegment, Zone } from '../model/request.js';

/** What the index reads of a session: its persisted zones (a `Session` is one). */
export interface IndexedZones {
  readonly tools: readonly ToolDefinition[];
  /** Tools before this index are in the global zone, the rest in the session zone. */
  readonly globalTools: number;
  readonly system: readonly SystemSegment[];
  readonly sessionMessages: readonly Message[];
  readonly history: readonly Message[];
}

/**
 * Memoised block records of a session's persisted zones. History is append-only, so each
 * message's records are computed once; assembling a request then only concatenates them.
 * The static part is recomputed only when the tool list changes (tool discovery), and history
 * records only after `rewriteHistory`.
 */
export class BlockIndex {
  private staticFor: { tools: unknown; system: unknown } | null = null;
  private staticRecords: BlockRecord[] = [];
  private globalHash = EMPTY_PREFIX_HASH;
  private historyRecords: BlockRecord[][] = [];
  private historyBase = '';
  /** Static and history records in one array, extended in place as history grows. */
  private flatRecords: BlockRecord[] = [];
  private flatStatic: BlockRecord[] | null = null;
  private flatHistoryCount = 0;
  /** Longest length of `flatRecords` handed out: entries below it never change in place. */
  private flatShared = 0;

  /** Records of tools, system segments and session-static messages. */
  staticBlocks(session: IndexedZones): BlockRecord[] {
    if (this.staticFor?.tools === session.tools && this.staticFor.system === session.system) return this.staticRecords;
    const records: BlockRecord[] = [];
    let prefix = EMPTY_PREFIX_HASH;
    const push = (zone: Zone, path: string, hash: string) => {
      prefix = chainHash(prefix, hash);
      records.push({ zone, path, hash, prefixHash: prefix });
    };
    session.tools.forEach((tool, index) => {
      push(index < session.globalTools ? 'global' : 'session', `tools[${index}]`, hashOf(tool));
    });
    let globalHash = prefix;
    session.system.forEach((segment, index) => {
      push(segment.zone, `system[${index}]`, hashOf(segment));
      if (segment.zone === 'global') globalHash = prefix;
    });
    session.sessionMessages.forEach((message, index) => {
      pushMessage(records, message, index, 'session', prefix);
      prefix = records.at(-1)?.prefixHash ?? prefix;
    });
    this.staticFor = { tools: session.tools, system: session.system };
    this.staticRecords = records;
    this.globalHash = globalHash;
    this.historyRecords = [];
    return records;
  }

  globalPrefixHash(session: IndexedZones): string {
    this.staticBlocks(session);
    return this.globalHash;
  }

  staticPrefixHash(session: IndexedZones): string {
    return this.staticBlocks(session).at(-1)?.prefixHash ?? EMPTY_PREFIX_HASH;
  }

  /** Records of every history block, computing only messages not seen before. */
  historyBlocks(session: IndexedZones): BlockRecord[][] {
    const base = this.staticPrefixHash(session);
    if (base !== this.historyBase) {
      this.historyRecords = [];
      this.historyBase = base;
    }
    const history = session.history;
    const offset = session.sessionMessages.length;
    let prefix = this.historyRecords.at(-1)?.at(-1)?.prefixHash ?? base;
    for (let index = this.historyRecords.length; index < history.length; index++) {
      const records: BlockRecord[] = [];
      pushMessage(records, history[index] as Message, index + offset, 'history', prefix);
      prefix = records.at(-1)?.prefixHash ?? prefix;
      this.historyRecords.push(records);
    }
    return this.historyRecords;
  }

  /**
   * Records of every persisted block (static zones, then history) as one flat array, extended
   * in place as history grows. Entries are never changed in place: a rewrite or tool discovery
   * starts a new array, so `(array, length)` is a snapshot a request can keep without copying.
   * Callers must not change it.
   */
  persistedBlocks(session: IndexedZones): readonly BlockRecord[] {
    const staticRecords = this.staticBlocks(session);
    const history = this.historyBlocks(session);
    if (this.flatStatic !== staticRecords || history.length < this.flatHistoryCount) {
      this.flatRecords = staticRecords.slice();
      this.flatStatic = staticRecords;
      this.flatHistoryCount = 0;
      this.flatShared = 0;
    }
    for (let index = this.flatHistoryCount; index < history.length; index++) {
      for (const record of history[index] as BlockRecord[]) this.flatRecords.push(record);
    }
    this.flatHistoryCount = history.length;
    this.flatShared = Math.max(this.flatShared, this.flatRecords.length);
    return this.flatRecords;
  }

  /**
   * Forget the records of history messages from `index` on (the message there was replaced).
   * Costs work for the forgotten messages only: the flat array is cut back in place, or copied
   * when a request still holds a snapshot that reaches past the cut (a message already sent
   * was replaced, which the session's own rewrites never do).
   */
  invalidateFrom(index: number): void {
    if (index >= this.historyRecords.length) return;
    if (this.flatStatic !== null && index < this.flatHistoryCount) {
      let flatLength = this.flatRecords.length;
      for (let message = index; message < this.flatHistoryCount; message++) {
        flatLength -= (this.historyRecords[message] as BlockRecord[]).length;
      }
      if (flatLength >= this.flatShared) this.flatRecords.length = flatLength;
      else {
        this.flatRecords = this.flatRecords.slice(0, flatLength);
        this.flatShared = 0;
      }
      this.flatHistoryCount = index;
    }
    this.historyRecords.length = index;
  }

  invalidateHistory(): void {
    this.historyRecords = [];
    this.historyBase = '';
    this.flatStatic = null;
  }
}

function pushMessage(records: BlockRecord[], message: Message, index: number, zone: Zone, startPrefix: string): void {
  let prefix = startPrefix;
  message.content.forEach((block, blockIndex) => {
    // The role is part of the bytes: the same block under another role is another prefix.
    const hash = chainHash(message.role, hashOf(block));
    prefix = chainHash(prefix, hash);
    records.push({ zone, path: `messages[${index}].content[${blockIndex}]`, hash, prefixHash: prefix });
  });
}
