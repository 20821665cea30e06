import type { Message, TextBlock, ToolResultBlock, UserContentBlock } from '../model/content.js';
import type { TailItem } from '../model/request.js';
import type { ProviderId } from '../providers/adapter.js';
import type { Session } from '../session/session.js';
import type { DiscoverableTool, Workload, WorkloadStep, WorkloadTurn } from '../workloads/workload.js';

/**
 * How a workload's pieces read as text. Every strategy renders the same words; strategies
 * differ only in where they put them, so cost differences come from layout alone.
 */

/** The skill discovery index (global static zone). */
export function skillIndexText(workload: Workload): string | null {
  if (workload.skills.length === 0) return null;
  const lines = workload.skills.map((skill) => `- ${skill.name}: ${skill.description}`);
  return `# Skills\nSkills hold the team's instructions for specific kinds of work. Matched skills appear with the user's message; call skill_load with a name to read one yourself.\n${lines.join('\n')}`;
}

/** Project instructions and attached documents (session static zone). */
export function sessionStaticText(workload: Workload): string | null {
  const parts: string[] = [];
  if (workload.sessionInstructions) parts.push(workload.sessionInstructions.trimEnd());
  for (const document of workload.sessionDocuments) parts.push(`# Attached: ${document.title}\n\n${document.text}`);
  return parts.length > 0 ? parts.join('\n\n') : null;
}

/** Working memory restored at start, as the `[CONTEXT]` pair of seeds/002. */
export function workingMemoryPair(workingMemory: string): Message[] {
  return [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: `[CONTEXT] Continuing our conversation. Here's the current session state:\n\n${workingMemory.trimEnd()}\n\nPlease keep this context in mind as we continue.`,
        },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'text', text: "I understand the current context. I'm ready to continue where we left off." }],
    },
  ];
}

/** Usage guidance of tools discovered mid-session (seeds/002 `[TOOL GUIDANCE]`). */
export function toolGuidanceText(tools: readonly DiscoverableTool[]): string | null {
  const withGuidance = tools.filter((tool) => tool.guidance);
  if (tools.length === 0) return null;
  const names = tools.map((tool) => tool.tool.name).join(', ');
  const details = withGuidance.map((tool) => (tool.guidance as string).trimEnd()).join('\n');
  return `[TOOL GUIDANCE] The following tools are now available: ${names}${details ? `\n\n${details}` : ''}`;
}

/** A matched skill as the per-turn block of seeds/001. */
export function skillBlockText(workload: Workload, name: string): string {
  const skill = workload.skills.find((candidate) => candidate.name === name);
  return `<skill name="${name}"><description>${skill?.description ?? ''}</description><instructions>\n${skill?.body.trimEnd() ?? ''}\n</instructions></skill>`;
}

export function timeText(at: number): string {
  return `[current time] ${new Date(at).toISOString().replace('.000Z', 'Z')}`;
}

/** The turn's tail items for a request at `at`, in Cachet's kinds and positions. */
export function tailItems(workload: Workload, turn: WorkloadTurn, at: number): TailItem[] {
  const items: TailItem[] = [];
  if (turn.tail.skills.length > 0) {
    items.push({
      kind: 'skills',
      text: turn.tail.skills.map((name) => skillBlockText(workload, name)).join('\n'),
      position: 'before-user-text',
    });
  }
  if (turn.tail.memoryRecall) items.push({ kind: 'memory-recall', text: turn.tail.memoryRecall.trimEnd(), position: 'end' });
  if (turn.tail.workingContext)
    items.push({ kind: 'working-context', text: turn.tail.workingContext.trimEnd(), position: 'end' });
  if (turn.tail.time) items.push({ kind: 'time', text: timeText(at), position: 'end' });
  return items;
}

/** What an empty user message says: providers reject empty text blocks and roles must alternate. */
export const EMPTY_USER_TEXT = '(empty message)';

/**
 * The user's message of a turn: images first (as providers recommend), then the text. Empty
 * (or blank) text is left out, as pi-ai does, because providers reject empty text blocks; a
 * turn with nothing else to send says `EMPTY_USER_TEXT`, since a user message must sit
 * between two assistant messages.
 */
export function userMessage(turn: WorkloadTurn): Message {
  const text = turn.user.trim().length > 0 ? [{ type: 'text' as const, text: turn.user }] : [];
  const content = [...turn.images, ...text];
  return { role: 'user', content: content.length > 0 ? content : [{ type: 'text', text: EMPTY_USER_TEXT }] };
}

/**
 * The tool results that answer a step, optionally with guidance for tools the step discovered
 * appended to the last result (so it enters history once, in the message the tools came from).
 */
export function toolResultMessage(step: WorkloadStep, guidance: string | null): Message | null {
  if (step.toolResults.length === 0) return null;
  const results: ToolResultBlock[] = step.toolResults.map((result) => ({ ...result, content: [...result.content] }));
  if (guidance) {
    const last = results.at(-1) as ToolResultBlock;
    last.content.push({ type: 'text', text: guidance } satisfies TextBlock);
  }
  return { role: 'user', content: results };
}

/**
 * What a turn changes before its user message, the same for every strategy: the model switch
 * (on the workload's own provider), the turn's request parameters (the session's defaults for
 * the ones it does not set) and the tools that connect at the turn (appended to `tools`).
 * Returns the connected tools, whose guidance each strategy places its own way.
 */
export function beginWorkloadTurn(
  session: Session,
  workload: Workload,
  turn: WorkloadTurn,
  provider: ProviderId,
): DiscoverableTool[] {
  if (turn.modelSwitch && provider === workload.provider) session.setModel(turn.modelSwitch);
  // Retention is a cache option, not a generation parameter: it reaches the adapters that send it.
  const { retention: _retention, ...params } = turn.params;
  session.setParams({ toolChoice: undefined, thinking: undefined, effort: undefined, parallelToolCalls: undefined, ...params });
  if (turn.connectedTools.length > 0) session.discoverTools(turn.connectedTools.map((tool) => tool.tool));
  return turn.connectedTools;
}

/** The turn's user message with the guidance of tools that connected at the turn in front of it. */
export function userMessageWithGuidance(turn: WorkloadTurn): Message {
  const message = userMessage(turn);
  const guidance = toolGuidanceText(turn.connectedTools);
  return guidance
    ? { role: 'user', content: [{ type: 'text', text: guidance }, ...(message.content as UserContentBlock[])] }
    : message;
}
