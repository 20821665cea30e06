import type { ContentBlock, ToolDefinition } from '../model/content.js';
import type { HindsightRequest, HindsightRun, HindsightUnit } from '../oracle/hindsight-run.js';
import { promptContentFor } from '../oracle/oracle-rules.js';
import type { ProviderId } from '../providers/adapter.js';
import { providerEntry } from '../providers/registry.js';
import type { CountableItem, TokenCounter } from '../tokens/token-counter.js';
import { type DiscoverableTool, turnModels, type Workload, type WorkloadStep, type WorkloadTurn } from '../workloads/workload.js';
import {
  sessionStaticText,
  skillBlockText,
  skillIndexText,
  timeText,
  toolGuidanceText,
  workingMemoryPair,
} from './workload-content.js';

/**
 * Read a workload's requests as a finished run. Token counts use the provider's counter, each
 * unit rounded down by one token so that no layout joining units into one block can count less
 * than the oracle does (estimators round per call). A repeated `skill_load` counts as empty:
 * a strategy may answer it with a pointer instead of the body.
 */
export function hindsightRunOf(
  workload: Workload,
  context: {
    provider: ProviderId;
    model: string;
    counter: TokenCounter;
    /**
     * Per request, the tokens the provider's cache model counts for the same content sent the
     * plainest way (no tail, no padding): the wire's own framing — message headers, a chat
     * template's tool preamble, a tool result's JSON wrapper — that every layout pays. Without
     * it, content is counted bare.
     */
    wireTokens?: readonly number[];
    /** Local engines, per request: reply tokens the next request reads back from the slot (`replyInSlot`). */
    replyTokens?: readonly number[];
  },
): HindsightRun {
  const { counter } = context;
  const resendsToolTurnReasoning = providerEntry(context.provider).resendsToolTurnReasoning ?? false;
  const visible = promptContentFor(context.provider, context.model);
  const { exact, textUnit, blockUnit, definitionUnit } = unitCounters(counter, visible.toolDefinitions);

  const tools = workload.tools.map(definitionUnit);
  const statics = staticUnits(workload, counter, textUnit, exact);

  const requests: HindsightRequest[] = [];
  const history: HindsightUnit[] = [];
  const discovered: HindsightUnit[] = [];
  const loadedSkills = new Set<string>();
  const models = turnModels(workload, context.provider, context.model);
  const discover = (tools: readonly DiscoverableTool[], prefix: string, into: HindsightUnit[]) => {
    const guidance = toolGuidanceText(tools);
    if (guidance) into.push(textUnit(`${prefix}/guidance`, guidance));
    for (const tool of tools) {
      const definition = definitionUnit(tool.tool);
      discovered.push(definition);
      // The same definition, as a deferred tool's reference appended to history.
      into.push({ id: `${prefix}/tool-reference/${tool.tool.name}`, tokens: definition.tokens, toolReference: true });
    }
  };
  // The wire's framing, as units of its own: what request i's wire count adds to its content
  // beyond the framing already placed, placed where request i's new content starts (the first
  // request's with the static prefix). Never negative: a count below the content's leaves the
  // content's bare count, which stays a lower bound.
  let framed = 0;
  const frame = (index: number, parts: ReadonlyArray<readonly HindsightUnit[]>): HindsightUnit | null => {
    const wire = context.wireTokens?.[index];
    if (wire === undefined) return null;
    let content = libraryTokens(workload, counter, discovered);
    // A discovered tool's definition counts once, as `discovered`: its reference in history is the
    // same definition in the deferred layout (a layout sends one or the other, never both).
    // Counted twice, it hid as much of the wire's framing (an image's tokens on cms-agent).
    for (const list of parts)
      for (const part of list)
        content += part.id.startsWith('frame/') || part.toolReference ? 0 : (exact.get(part.id) ?? part.tokens);
    const tokens = Math.max(0, wire - content - framed);
    framed += tokens;
    return tokens > 0 ? { id: `frame/${index}`, tokens } : null;
  };
  let images = false;
  for (const turn of workload.turns) {
    images ||= turn.images.length > 0;
    // Tools connecting at the turn (an MCP server coming up) arrive before its user message.
    discover(turn.connectedTools, `t${turn.turn}/connect`, history);
    const userMessage = [
      // An image costs what the wire's own rule says (Gemini a fixed count per image, DeepSeek a
      // text placeholder, Anthropic by pixels): counted as none here, it reaches the oracle through
      // the wire's framing count, as the provider counts it.
      ...turn.images.map((_, index) => ({ id: `t${turn.turn}/image/${index}`, tokens: 0 })),
      textUnit(`t${turn.turn}/user`, turn.user),
    ];
    const turnTail = turnTailUnits(workload, turn, textUnit);
    // The clock as every strategy renders it (`timeText`), joinable text like the rest of the tail.
    const clockAt = (at: number) => (turn.tail.time ? textUnit(`clock@${at}`, timeText(at)) : null);
    let earlierHistory = [...history];
    const turnHistory: HindsightUnit[] = [];
    for (const step of turn.steps) {
      const index = requests.length;
      const forked = requests.at(-1);
      if (step.subagentTask !== null && forked) {
        // A fork repeats its parent's last request and adds its task last (its wire framing uncounted).
        requests.push({
          ...forked,
          step: step.step,
          at: step.at,
          forkTask: [textUnit(`t${turn.turn}/s${step.step}/task`, step.subagentTask)],
        });
        continue;
      }
      const framing = frame(index, [tools, [...discovered], statics, earlierHistory, userMessage, turnHistory]);
      if (framing && index === 0) statics.push(framing);
      else if (framing && step === turn.steps[0]) {
        history.push(framing);
        earlierHistory = [...history];
      } else if (framing) turnHistory.push(framing);
      requests.push({
        turn: turn.turn,
        step: step.step,
        at: step.at,
        model: models[turn.turn - 1] ?? context.model,
        ...(turn.params.thinking ? { thinking: turn.params.thinking } : {}),
        ...(images ? { images: true as const } : {}),
        tools,
        discoveredTools: [...discovered],
        statics,
        earlierHistory,
        userMessage,
        turnHistory: [...turnHistory],
        turnTail,
        clockNow: clockAt(step.at),
        clockAtTurnStart: clockAt(turn.at),
      });
      const prefix = `t${turn.turn}/s${step.step}`;
      const replyUnits = replyUnitsOf(step, prefix, blockUnit, {
        // Earlier reasoning reaches the wire only where the provider sends it back (DeepSeek: the
        // reasoning of tool-call turns).
        reasoningSent: resendsToolTurnReasoning && step.reply.some((block) => block.type === 'tool_use'),
        toolCallsVisible: visible.toolCalls,
      });
      turnHistory.push(...replyInSlot(requests[index]!, prefix, replyUnits, context.replyTokens?.[index]));
      turnHistory.push(...resultUnitsOf(step, prefix, blockUnit, loadedSkills));
      discover(step.discoveredTools, prefix, turnHistory);
    }
    history.push(...userMessage, ...turnHistory);
  }
  return { workload: workload.name, provider: context.provider, requests };
}

/**
 * Tools of the library not discovered yet count as content too: a layout that declares them up
 * front sends them, and their definitions are not framing.
 */
function libraryTokens(workload: Workload, counter: TokenCounter, discoveredSoFar: readonly HindsightUnit[]): number {
  return workload.toolLibrary
    .filter((entry) => !discoveredSoFar.some((known) => known.id === `tool:${entry.tool.name}`))
    .reduce((total, entry) => total + counter.countBlock(entry.tool), 0);
}

/**
 * A reply's units as the next request's history holds them, with what the slot gives back of
 * the reply (`readBack`, measured on the plain layout; absent: the reply's content as counted).
 * Read back whole, the reply's framing (tokens beyond its content) follows it as a unit of the
 * slot; read back in part only (Llama 3.x parallel calls, sent one per message), a unit of the
 * tokens read back comes first and is all the slot keeps (`request.slotReply`).
 */
function replyInSlot(
  request: HindsightRequest,
  prefix: string,
  replyUnits: HindsightUnit[],
  readBack: number | undefined,
): HindsightUnit[] {
  if (readBack === undefined) return replyUnits;
  const content = replyUnits.reduce((total, unit) => total + unit.tokens, 0);
  if (readBack >= content) {
    return readBack > content ? [...replyUnits, { id: `${prefix}/reply/frame`, tokens: readBack - content }] : replyUnits;
  }
  const shared = { id: `${prefix}/reply/read-back`, tokens: readBack };
  request.slotReply = [shared.id];
  return [shared, ...replyUnits];
}

type BlockUnit = (id: string, block: ContentBlock | ToolDefinition) => HindsightUnit;

/**
 * Unit makers over one counter, and the exact count of every unit made (what the wire total is
 * compared against). Text a layout may join with other text (system parts, user text with the
 * tail) is counted one token short; blocks every layout sends as they are (tools, replies, tool
 * results, images) exactly.
 */
function unitCounters(counter: TokenCounter, toolDefinitionsVisible: boolean) {
  const exact = new Map<string, number>();
  const unit = (id: string, item: CountableItem, joinable: boolean): HindsightUnit => {
    const tokens = counter.countBlock(item);
    exact.set(id, tokens);
    return { id, tokens: joinable ? Math.max(0, tokens - 1) : tokens };
  };
  const textUnit = (id: string, text: string): HindsightUnit => unit(`${id}#${text.length}`, { kind: 'text', text }, true);
  const blockUnit: BlockUnit = (id, block) => unit(id, block, false);
  const definitionUnit = (tool: ToolDefinition): HindsightUnit =>
    toolDefinitionsVisible ? blockUnit(`tool:${tool.name}`, tool) : { id: `tool:${tool.name}`, tokens: 0 };
  return { exact, textUnit, blockUnit, definitionUnit };
}

/**
 * A step's reply as units. Reasoning the provider does not send back is dropped, or sent only
 * with a signature: counted as none, a signed block still reaches the oracle through the wire's
 * framing count. Tool calls a template does not print count as none too.
 */
function replyUnitsOf(
  step: WorkloadStep,
  prefix: string,
  blockUnit: BlockUnit,
  flags: { reasoningSent: boolean; toolCallsVisible: boolean },
): HindsightUnit[] {
  return step.reply.map((block, index) => {
    const reasoning = block.type === 'thinking' || block.type === 'redacted_thinking';
    const id = `${prefix}/reply/${index}`;
    const unseen = (reasoning && !flags.reasoningSent) || (block.type === 'tool_use' && !flags.toolCallsVisible);
    return unseen ? { id, tokens: 0 } : blockUnit(id, block);
  });
}

/** A step's tool results as units; a repeated `skill_load` counts as empty (a strategy may answer it with a pointer). */
function resultUnitsOf(step: WorkloadStep, prefix: string, blockUnit: BlockUnit, loadedSkills: Set<string>): HindsightUnit[] {
  const skillLoadIds = new Map<string, string>();
  for (const block of step.reply) {
    if (block.type === 'tool_use' && step.skillLoads.includes(String(block.input.name))) {
      skillLoadIds.set(block.id, String(block.input.name));
    }
  }
  return step.toolResults.map((result, index) => {
    const skill = skillLoadIds.get(result.toolUseId);
    if (skill !== undefined && loadedSkills.has(skill)) return { id: `${prefix}/result/${index}/reload`, tokens: 0 };
    if (skill !== undefined) loadedSkills.add(skill);
    return blockUnit(`${prefix}/result/${index}`, result);
  });
}

type TextUnit = (id: string, text: string) => HindsightUnit;

/** The session's static prefix as units: persona (with guidelines and the skill index), project, working memory. */
function staticUnits(workload: Workload, counter: TokenCounter, textUnit: TextUnit, exact: Map<string, number>): HindsightUnit[] {
  const statics: HindsightUnit[] = [];
  const persona = [workload.persona.trimEnd(), workload.guidelines?.trimEnd(), skillIndexText(workload)]
    .filter((part): part is string => Boolean(part))
    .join('\n\n');
  statics.push(textUnit('system', persona));
  const project = sessionStaticText(workload);
  if (project) statics.push(textUnit('project', project));
  if (workload.workingMemory) {
    const memory = textUnit('working-memory', workload.workingMemory.trimEnd());
    statics.push(memory);
    // Against the wire count, the memory is content as Cachet restores it (a user/assistant
    // pair): its wrapper is Cachet's choice, not framing every layout pays (a system tag is
    // shorter).
    const pair: CountableItem[] = workingMemoryPair(workload.workingMemory).flatMap((message) => [...message.content]);
    exact.set(
      memory.id,
      pair.reduce((total, block) => total + counter.countBlock(block), 0),
    );
  }
  return statics;
}

/** A turn's tail as units: matched skills, recalled memory, working context (the clock is placed per request). */
function turnTailUnits(workload: Workload, turn: WorkloadTurn, textUnit: TextUnit): HindsightUnit[] {
  const turnTail: HindsightUnit[] = [];
  if (turn.tail.skills.length > 0) {
    const text = turn.tail.skills.map((name) => skillBlockText(workload, name)).join('\n');
    turnTail.push(textUnit(`t${turn.turn}/tail/skills`, text));
  }
  if (turn.tail.memoryRecall) turnTail.push(textUnit(`t${turn.turn}/tail/recall`, turn.tail.memoryRecall.trimEnd()));
  if (turn.tail.workingContext) turnTail.push(textUnit(`t${turn.turn}/tail/context`, turn.tail.workingContext.trimEnd()));
  return turnTail;
}
