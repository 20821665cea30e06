import type { ThinkingConfig } from '../model/request.js';
import type { ProviderId } from '../providers/adapter.js';

/**
 * A finished run as the hindsight oracle reads it: for every request, the content any layout
 * must send (no wrappers, no framing) and its time. Nothing here says where a strategy put
 * things; the oracle chooses that itself.
 */
export interface HindsightRun {
  workload: string;
  provider: ProviderId;
  requests: HindsightRequest[];
}

/** One piece of content, counted on its own. `id` is equal exactly when the bytes are. */
export interface HindsightUnit {
  id: string;
  tokens: number;
  /** A discovered tool's definition appended to history (Anthropic's deferred tools): dropped where tools are declared instead. */
  toolReference?: true;
}

export interface HindsightRequest {
  turn: number;
  step: number;
  /** When the request is sent (ms on the workload's clock). */
  at: number;
  model: string;
  /**
   * The request's extended-thinking setting (the turn's `params.thinking`). A request with thinking
   * takes no pre-warm request (`prewarmingParamsReason`), so no ping keeps its entries alive.
   */
  thinking?: ThinkingConfig;
  /**
   * The request's messages hold an image (this turn's or an earlier one's). On Anthropic's rules
   * whether images are present keys the messages' cache: where it first turns true, every layout
   * reads no further than its tools and system (`OracleRules.imagesKeyMessages`).
   */
  images?: true;
  /** Tool definitions declared at the start of the session. */
  tools: HindsightUnit[];
  /** Tools discovered before this request, in the order they were discovered. */
  discoveredTools: HindsightUnit[];
  /** Persona, guidelines, skill index, project instructions, documents, working memory. */
  statics: HindsightUnit[];
  /** History before this turn's user message. */
  earlierHistory: HindsightUnit[];
  /** This turn's user message. */
  userMessage: HindsightUnit[];
  /**
   * History after the user message, within this turn: replies, tool results, guidance and
   * (as `tool_reference`-style units) the definitions of tools discovered in this turn.
   */
  turnHistory: HindsightUnit[];
  /** The turn's tail without the clock: memory recall, working context, matched skills. */
  turnTail: HindsightUnit[];
  /** The clock rendered at this request, and at the turn's first request (a turn-scoped clock). */
  clockNow: HindsightUnit | null;
  clockAtTurnStart: HindsightUnit | null;
  /**
   * A subagent call: the instruction it sends after its parent's previous request (whose content
   * this request repeats field for field). Sent last, never cached; absent on the parent's own requests.
   */
  forkTask?: HindsightUnit[];
  /**
   * Local engines: the ids of the reply's units the slot keeps, when not all of them. Llama 3.x
   * cannot render parallel tool calls; Cachet's adapter sends them one per message, and the engine's
   * slot holds the first call it generated, which the next prompt repeats. Absent: the whole reply.
   */
  slotReply?: string[];
}
