import type { Message, ToolDefinition } from '../model/content.js';
import type { Session } from '../session/session.js';
import type { TailProvider } from '../session/tail-provider.js';

export const TOOL_GUIDANCE_MARKER = '[TOOL GUIDANCE]';

/** Guidance text for one tool; null or empty means the tool needs none. */
export type GuidanceSource = (tool: ToolDefinition) => string | null | undefined;

/** Default guidance: the tool's own description. */
export const descriptionGuidance: GuidanceSource = (tool) => tool.description;

interface GuidedTool {
  name: string;
  guidance: string;
}

/**
 * The `[TOOL GUIDANCE]` user/assistant pair for newly discovered tools (tools without guidance
 * text are left out; no tool with guidance, no messages).
 *
 * @example
 * toolGuidanceMessages([{ name: 'get_page', description: 'Fetch a page by id.', inputSchema: { type: 'object' } }]);
 */
export function toolGuidanceMessages(
  tools: readonly ToolDefinition[],
  guidanceFor: GuidanceSource = descriptionGuidance,
): Message[] {
  return guidancePair(collectGuidance(tools, guidanceFor));
}

function collectGuidance(tools: readonly ToolDefinition[], guidanceFor: GuidanceSource): GuidedTool[] {
  return tools.flatMap((tool) => {
    const guidance = guidanceFor(tool)?.trim();
    return guidance ? [{ name: tool.name, guidance }] : [];
  });
}

function guidanceText(tools: readonly GuidedTool[]): string {
  const names = tools.map((tool) => tool.name).join(', ');
  const sections = tools.map((tool) => `## ${tool.name}\n${tool.guidance}`).join('\n\n');
  return `${TOOL_GUIDANCE_MARKER} The following tools are now available: ${names}\n\nHere are the usage guidelines:\n\n${sections}\n\nPlease follow these guidelines when using these tools.`;
}

function guidancePair(tools: readonly GuidedTool[]): Message[] {
  if (tools.length === 0) return [];
  const names = tools.map((tool) => tool.name).join(', ');
  return [
    { role: 'user', content: [{ type: 'text', text: guidanceText(tools) }] },
    {
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: `I understand. I now have access to: ${names}. I'll follow the provided guidelines when using these tools.`,
        },
      ],
    },
  ];
}

/**
 * Tool discovery with `[TOOL GUIDANCE]` pairs in history, once per tool.
 *
 * Placement: history must alternate roles and keep every tool_use answered, so a pair can only
 * follow an assistant message without pending tool calls (a turn boundary). `discover` adds the
 * tools to the session at once (the model can call them on the next step) and appends the pair
 * right away when history is at a boundary; inside a tool loop it queues the guidance, shows it
 * through `tailProvider()` (turn tail, not persisted) until then, and `flush` appends it at the
 * next boundary, before the next user input (`appendUserText` does both). Tools the session
 * already knew, and tools guided before, are never repeated.
 *
 * @example
 * const guidance = new ToolGuidance();
 * const session = new Session({ ...options, tail: [guidance.tailProvider()] });
 * guidance.discover(session, toolsFoundBySearch);   // mid-loop: queued, visible in the tail
 * guidance.appendUserText(session, 'next question'); // pair appended, then the user's text
 */
export class ToolGuidance {
  private readonly guidanceFor: GuidanceSource;
  private readonly guided = new Set<string>();
  private queue: GuidedTool[] = [];

  constructor(options: { guidanceFor?: GuidanceSource } = {}) {
    this.guidanceFor = options.guidanceFor ?? descriptionGuidance;
  }

  /** Names of tools whose guidance waits for the next turn boundary. */
  get pending(): string[] {
    return this.queue.map((tool) => tool.name);
  }

  /**
   * Declare tools found mid-session. Returns the tools that were new to the session and
   * whether their guidance pair is already in history.
   */
  discover(session: Session, tools: ToolDefinition[]): { added: ToolDefinition[]; appended: boolean } {
    const added = session.discoverTools(tools);
    const fresh = added.filter((tool) => !this.guided.has(tool.name));
    for (const tool of fresh) this.guided.add(tool.name);
    this.queue.push(...collectGuidance(fresh, this.guidanceFor));
    return { added, appended: this.queue.length === 0 ? false : this.flush(session) };
  }

  /** Append the queued guidance pair if history is at a turn boundary. True when appended. */
  flush(session: Session): boolean {
    if (this.queue.length === 0 || !atTurnBoundary(session)) return false;
    const [user, assistant] = guidancePair(this.queue) as [Message, Message];
    session.append(user, { injected: true });
    session.append(assistant);
    this.queue = [];
    return true;
  }

  /** Flush pending guidance, then append the user's text (a new turn). */
  appendUserText(session: Session, text: string): void {
    this.flush(session);
    session.appendUserText(text);
  }

  /** Shows queued guidance in the turn tail until the pair reaches history. */
  tailProvider(): TailProvider {
    return {
      kind: 'overlay',
      position: 'end',
      render: () => (this.queue.length > 0 ? guidanceText(this.queue) : null),
    };
  }
}

/** True when the next message may be a user message that is not a tool result. */
function atTurnBoundary(session: Session): boolean {
  const last = session.history.at(-1) ?? session.sessionMessages.at(-1);
  if (!last) return true;
  return last.role === 'assistant' && !last.content.some((block) => block.type === 'tool_use');
}
