import type { SessionLabels } from '../events/catalog.js';
import type { EventBus } from '../events/event-bus.js';
import type { Message, ToolDefinition } from '../model/content.js';
import { ValidationError } from '../model/errors.js';
import { deepFreeze } from '../model/freeze.js';
import { DEFAULT_SIZE_LIMITS, type SizeLimits } from '../model/limits.js';
import type { DeferredTools, GenerationParams, SystemSegment, TailItem } from '../model/request.js';
import { generationParamsSchema } from '../model/schemas.js';
import { parseWith, validateMessage, validatePairing, validateSystemSegment, validateTools } from '../model/validate.js';
import { BlockIndex } from './block-index.js';
import { validateHistoryOrder } from './history-order.js';
import { MessageLog } from './message-log.js';
import { parseSerializedSession, SESSION_FORMAT_VERSION, type SerializedSession } from './serialized-session.js';
import { toolReferencesOf } from './tool-references.js';

export { SESSION_FORMAT_VERSION, type SerializedSession } from './serialized-session.js';

import type { TailProvider } from './tail-provider.js';

export interface SegmentInput {
  label: string;
  text: string;
}

export interface SessionOptions {
  id: string;
  model: string;
  /** Global static zone: the same bytes for every session of a deployment. */
  global: { tools?: ToolDefinition[]; system: SegmentInput[] };
  /** Session static zone: fixed once at session start. */
  sessionStatic?: { system?: SegmentInput[]; messages?: Message[] };
  tail?: TailProvider[];
  params?: Partial<GenerationParams>;
  /** Events are published here; without a bus the session is silent. */
  bus?: EventBus;
  /** The session's clock (ms since the epoch). Simulations pass the workload's clock. */
  clock?: () => number;
  limits?: Partial<SizeLimits>;
  /** Extra fields for `session.started` (provider, strategy, source, run, workload...). */
  labels?: SessionLabels;
  /**
   * Tools the model may load later (client-side tool search). They are never part of the
   * tools zone: a `tool_result` loads them by name through `toolReferences`. On Anthropic the
   * adapter sends them with `defer_loading: true` and the loads as `tool_reference` blocks, so
   * discovering a tool keeps the cache; elsewhere the adapter declares them up front or appends
   * them when loaded, whichever its cost model prefers (see docs/concepts.md).
   */
  deferredTools?: ToolDefinition[];
  /**
   * What this deployment's sessions look like, for `auto` tail scopes: requests per turn and
   * per session (from `sessionRhythmFromTrace`, or your own figures). Without them the
   * session learns from its own finished turns.
   */
  expectations?: SessionExpectations;
}

export interface SessionExpectations {
  /** Average requests per turn (tool-loop steps + 1). */
  stepsPerTurn?: number;
  /** Average requests per session. */
  requestsPerSession?: number;
}

const DEFAULT_PARAMS: GenerationParams = { maxTokens: 4096 };

/**
 * The only stateful object of the assembly path. It holds the four zones; history is
 * append-only through `append` and changes otherwise only through `rewriteHistory`, the one
 * deliberate, evented rewrite (used by compaction). Every mutator validates first and
 * changes nothing when validation fails.
 */
export class Session {
  readonly id: string;
  readonly bus: EventBus | undefined;
  readonly clock: () => number;
  readonly limits: SizeLimits;
  readonly tailProviders: readonly TailProvider[];
  private modelName: string;
  private toolList: ToolDefinition[];
  private readonly globalToolCount: number;
  private readonly systemSegments: SystemSegment[];
  private readonly sessionMessageList: Message[];
  private historyList: Message[] = [];
  private generationParams: GenerationParams;
  private turnNumber = 0;
  private ended = false;
  private readonly deferredToolList: ToolDefinition[];
  private loadedDeferredTools: string[] = [];
  /** History index of the message that opened the current turn. */
  private turnOpeningIndex = -1;
  /** Requests prepared in the current turn, and in each finished turn (for expectations). */
  private requestsThisTurn = 0;
  private finishedTurnRequests = 0;
  private finishedTurns = 0;
  private requestCount = 0;
  /** The turn whose opening message holds its turn-scoped tail (or 0), and the kinds it holds. */
  private turnTailTurn = 0;
  private turnTailKindList: TailItem['kind'][] = [];
  private rewriteCount = 0;
  readonly expectations: SessionExpectations;
  /** @internal session-static messages then history, shared by requests without copying (see assemble). */
  readonly messageLog = new MessageLog();
  /** @internal memoised hashes of the prefix; see BlockIndex. */
  readonly blockIndex = new BlockIndex();

  constructor(options: SessionOptions, restored?: SerializedSession) {
    if (typeof options !== 'object' || options === null) throw new ValidationError('options', 'an object');
    if (typeof options.id !== 'string' || options.id.length === 0) throw new ValidationError('options.id', 'a non-empty string');
    if (typeof options.model !== 'string' || options.model.length === 0) {
      throw new ValidationError('options.model', 'a non-empty model id');
    }
    this.id = options.id;
    this.modelName = options.model;
    this.bus = options.bus;
    this.clock = options.clock ?? Date.now;
    this.limits = { ...DEFAULT_SIZE_LIMITS, ...options.limits };
    this.tailProviders = [...(options.tail ?? [])];
    this.expectations = { ...options.expectations };
    if (restored) {
      this.deferredToolList = restored.deferredTools?.tools ?? [];
      this.loadedDeferredTools = restored.deferredTools?.loaded ?? [];
      this.toolList = restored.tools.map((tool) => deepFreeze(tool));
      this.globalToolCount = restored.globalToolCount;
      this.systemSegments = restored.system;
      // Restored messages are as immutable as appended ones (hashes are memoised per object).
      this.sessionMessageList = restored.sessionMessages.map((message) => deepFreeze(message));
      this.historyList = restored.history.map((message) => deepFreeze(message));
      this.generationParams = restored.params;
      this.turnNumber = restored.turn;
      return;
    }
    if (!options.global || !Array.isArray(options.global.system)) {
      throw new ValidationError('options.global.system', 'an array of { label, text } segments');
    }
    // Frozen like the history: the adapters' conversion memos trust only deep-frozen values.
    this.toolList = validateTools(options.global.tools ?? [], 'options.global.tools', this.limits).map((tool) =>
      deepFreeze(tool),
    );
    this.globalToolCount = this.toolList.length;
    this.deferredToolList = validateTools(
      options.deferredTools ?? [],
      'options.deferredTools',
      this.limits,
      new Set(this.toolList.map((tool) => tool.name)),
    );
    const globalSegments = options.global.system.map((segment, index) => ({
      zone: 'global' as const,
      ...(validateSystemSegment(segment, `options.global.system[${index}]`, this.limits) as SegmentInput),
    }));
    const sessionSegments = (options.sessionStatic?.system ?? []).map((segment, index) => ({
      zone: 'session' as const,
      ...(validateSystemSegment(segment, `options.sessionStatic.system[${index}]`, this.limits) as SegmentInput),
    }));
    this.systemSegments = [...globalSegments, ...sessionSegments];
    const sessionMessages = (options.sessionStatic?.messages ?? []).map((message, index) =>
      validateMessage(message, `options.sessionStatic.messages[${index}]`, this.limits),
    );
    validatePairing(sessionMessages, 'options.sessionStatic.messages', { allowPendingAtEnd: false });
    this.sessionMessageList = sessionMessages.map((message) => deepFreeze(message));
    const params = { ...DEFAULT_PARAMS, ...options.params };
    this.generationParams = parseWith(generationParamsSchema, params, 'options.params') as GenerationParams;
    this.bus?.emit('session.started', this.id, this.clock(), {
      model: this.modelName,
      ...options.labels,
      globalPrefixHash: this.blockIndex.globalPrefixHash(this),
      sessionPrefixHash: this.blockIndex.staticPrefixHash(this),
    });
  }

  get model(): string {
    return this.modelName;
  }
  get tools(): readonly ToolDefinition[] {
    return this.toolList;
  }
  get globalTools(): number {
    return this.globalToolCount;
  }
  get system(): readonly SystemSegment[] {
    return this.systemSegments;
  }
  get sessionMessages(): readonly Message[] {
    return this.sessionMessageList;
  }
  get history(): readonly Message[] {
    return this.historyList;
  }
  get params(): Readonly<GenerationParams> {
    return this.generationParams;
  }
  /** Deferred tools and the names loaded so far; null when the session declares none. */
  get deferredTools(): DeferredTools | null {
    if (this.deferredToolList.length === 0) return null;
    return { tools: this.deferredToolList, loaded: this.loadedDeferredTools };
  }
  /** How many times `rewriteHistory` has run (compaction): a change tells break detection why history moved. */
  get historyRewrites(): number {
    return this.rewriteCount;
  }
  /** Requests prepared so far in the current turn. */
  get requestsInTurn(): number {
    return this.requestsThisTurn;
  }
  /**
   * Expected requests per turn and remaining after the current turn: the given expectations,
   * else what this session's finished turns show (a session is expected to last about as long
   * again as it has so far).
   */
  expectedShape(): { stepsPerTurn: number; requestsAfterTurn: number } {
    const learnedSteps = this.finishedTurns > 0 ? this.finishedTurnRequests / this.finishedTurns : 1;
    const stepsPerTurn = this.expectations.stepsPerTurn ?? learnedSteps;
    const expectedTotal = this.expectations.requestsPerSession ?? 2 * this.requestCount;
    const requestsAfterTurn = Math.max(0, expectedTotal - this.requestCount - Math.max(0, stepsPerTurn - this.requestsThisTurn));
    return { stepsPerTurn, requestsAfterTurn };
  }
  /** Number of user inputs appended so far. */
  get turn(): number {
    return this.turnNumber;
  }

  /**
   * Append one message to history after validating it and its tool pairing with the previous
   * message. A user message that carries text (not only tool results) starts a new turn and
   * emits `turn.started`, unless `options.injected` marks it as harness-injected context (a
   * `[TOOL GUIDANCE]` pair, src/injection) rather than user input.
   */
  append(message: Message, options: { injected?: boolean } = {}): void {
    const index = this.sessionMessageList.length + this.historyList.length;
    const path = `messages[${index}]`;
    const parsed = validateMessage(message, path, this.limits);
    const previous = this.historyList.at(-1) ?? this.sessionMessageList.at(-1);
    validateHistoryOrder(previous, [parsed], () => path);
    // Pairing involves the previous message only when it is an assistant message whose calls
    // this message answers; a user message before was already checked when it was appended.
    const pairingWindow = previous?.role === 'assistant' ? [previous, parsed] : [parsed];
    validatePairing(pairingWindow, 'messages', {
      allowPendingAtEnd: true,
      offset: index - pairingWindow.length + 1,
    });
    const references = toolReferencesOf(parsed, path, this.deferredToolList);
    const frozen = deepFreeze(parsed);
    this.historyList.push(frozen);
    this.messageLog.push(frozen);
    for (const name of references) if (!this.loadedDeferredTools.includes(name)) this.loadedDeferredTools.push(name);
    if (!options.injected && parsed.role === 'user' && parsed.content.some((block) => block.type !== 'tool_result')) {
      if (this.turnNumber > 0) {
        this.finishedTurns += 1;
        this.finishedTurnRequests += this.requestsThisTurn;
      }
      this.requestsThisTurn = 0;
      this.turnOpeningIndex = this.historyList.length - 1;
      this.turnNumber += 1;
      this.bus?.emit('turn.started', this.id, this.clock(), { turn: this.turnNumber });
    }
  }

  /**
   * Count one prepared request of the current turn (the runtime calls it from `prepareRequest`);
   * it feeds the learned turn shape and closes the window in which the turn's tail can persist.
   */
  noteRequest(): void {
    this.requestsThisTurn += 1;
    this.requestCount += 1;
  }

  /** Kinds of tail item the current turn's opening message holds (empty when none were persisted). */
  get persistedTailKinds(): readonly TailItem['kind'][] {
    return this.turnTailTurn === this.turnNumber && this.turnNumber > 0 ? this.turnTailKindList : [];
  }

  /**
   * Persist turn-scoped tail items into the message that opened the current turn, once, before
   * its first request: `before-user-text` items before the user's first text block, the others
   * after its content. The message has not been sent yet, so no cached byte changes; from now on
   * the items are history. Returns false (and changes nothing) when the turn's first request
   * was already prepared or its tail already persisted.
   */
  persistTurnTail(items: readonly TailItem[]): boolean {
    if (items.length === 0 || this.persistedTailKinds.length > 0 || this.requestsThisTurn > 0) return false;
    const index = this.turnOpeningIndex;
    const opening = this.historyList[index];
    if (index !== this.historyList.length - 1 || opening?.role !== 'user') return false;
    const asBlock = (item: TailItem) => ({ type: 'text' as const, text: item.text });
    const before = items.filter((item) => item.position === 'before-user-text').map(asBlock);
    const after = items.filter((item) => item.position !== 'before-user-text').map(asBlock);
    const firstText = opening.content.findIndex((block) => block.type === 'text');
    const content =
      firstText === -1
        ? [...before, ...opening.content, ...after]
        : [...opening.content.slice(0, firstText), ...before, ...opening.content.slice(firstText), ...after];
    const offset = this.sessionMessageList.length;
    const message = validateMessage({ role: 'user', content }, `messages[${index + offset}]`, this.limits);
    this.historyList[index] = deepFreeze(message);
    this.messageLog.replace(offset + index, this.historyList[index] as Message);
    this.blockIndex.invalidateFrom(index);
    this.turnTailTurn = this.turnNumber;
    this.turnTailKindList = items.map((item) => item.kind);
    return true;
  }

  /** Append a user message with one text block. */
  appendUserText(text: string): void {
    this.append({ role: 'user', content: [{ type: 'text', text }] });
  }

  /**
   * Declare tools discovered during the session. New tools are appended after the known ones
   * in the order given; tools already declared (by name) are ignored. Returns the new ones.
   * Adding tools changes the tools zone, which providers cache first: it is a one-time
   * re-write that Cachet never repeats by reordering.
   */
  discoverTools(tools: ToolDefinition[]): ToolDefinition[] {
    const known = new Set(this.toolList.map((tool) => tool.name));
    const fresh = (Array.isArray(tools) ? tools : []).filter(
      (tool) => typeof tool === 'object' && tool !== null && !known.has((tool as ToolDefinition).name),
    );
    if (!Array.isArray(tools)) throw new ValidationError('tools', 'an array of tool definitions');
    const validated = validateTools(fresh, 'tools', this.limits, known);
    this.toolList = [...this.toolList, ...validated.map((tool) => deepFreeze(tool))];
    return validated;
  }

  /**
   * Replace history: the one deliberate rewrite, for compaction. The new history must pass
   * the same validation as appended messages. Emits `history.rewritten`.
   */
  rewriteHistory(messages: Message[], reason: string): void {
    if (!Array.isArray(messages)) throw new ValidationError('messages', 'an array of messages');
    const offset = this.sessionMessageList.length;
    const parsed = messages.map((message, index) => validateMessage(message, `messages[${index + offset}]`, this.limits));
    validatePairing([...this.sessionMessageList, ...parsed], 'messages', { allowPendingAtEnd: true });
    validateHistoryOrder(this.sessionMessageList.at(-1), parsed, (index) => `messages[${index + offset}]`);
    const before = this.historyList.length;
    this.historyList = parsed.map((message) => deepFreeze(message));
    this.messageLog.reset();
    this.blockIndex.invalidateHistory();
    this.rewriteCount += 1;
    this.bus?.emit('history.rewritten', this.id, this.clock(), {
      reason,
      messagesBefore: before,
      messagesAfter: parsed.length,
    });
  }

  /**
   * Declare the session finished: emits `session.ended`, on which the bus drops the session's
   * sequence counter. Idempotent. The session stays readable (`toJSON`, `history`).
   */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.bus?.emit('session.ended', this.id, this.clock(), {
      turns: this.turnNumber,
      historyMessages: this.historyList.length,
    });
  }

  /** Switch model mid-session (a cache break on every provider; recorded as `model-changed`). */
  setModel(model: string): void {
    if (typeof model !== 'string' || model.length === 0) throw new ValidationError('model', 'a non-empty model id');
    this.modelName = model;
  }

  setParams(params: Partial<GenerationParams>): void {
    if (typeof params !== 'object' || params === null) throw new ValidationError('params', 'an object of generation parameters');
    const merged = { ...this.generationParams, ...params };
    this.generationParams = parseWith(generationParamsSchema, merged, 'params') as GenerationParams;
  }

  toJSON(): SerializedSession {
    return {
      formatVersion: SESSION_FORMAT_VERSION,
      id: this.id,
      model: this.modelName,
      tools: this.toolList,
      globalToolCount: this.globalToolCount,
      system: this.systemSegments,
      sessionMessages: this.sessionMessageList,
      history: this.historyList,
      params: this.generationParams,
      turn: this.turnNumber,
      ...(this.deferredTools ? { deferredTools: this.deferredTools } : {}),
    };
  }

  /** Restore a session from `toJSON()` output (validated). Tail providers, bus and clock are behaviour: pass them again. */
  static fromJSON(data: unknown, options: Pick<SessionOptions, 'tail' | 'bus' | 'clock' | 'limits'> = {}): Session {
    const parsed = parseSerializedSession(data, options.limits);
    return new Session({ id: parsed.id, model: parsed.model, global: { system: [] }, ...options }, parsed);
  }
}
