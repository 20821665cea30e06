import type { AssistantContentBlock, ToolUseBlock, UserContentBlock } from '../../../model/content.js';
import type { JsonObject } from '../../../model/json.js';
import type { Session } from '../../../session/session.js';
import { TOOLS } from './fixtures.js';

/** One agent step of a random conversation: some parallel tool calls (answered next) and optional text. */
export interface ToolLoopStep {
  calls: number;
  text?: string | undefined;
}

/** One user turn: what the user sends, then the agent's steps. */
export interface ToolLoopTurn<Step extends ToolLoopStep> {
  user: UserContentBlock[];
  steps: readonly Step[];
}

export interface ToolLoopOptions<Step extends ToolLoopStep> {
  /** The session stops inside a tool loop (the last step calls tools) instead of on a new user message. */
  endInToolLoop: boolean;
  /** The step a turn without steps takes (a plain answer). */
  answer: Step;
  /** Blocks each assistant message opens with (thinking), given the step and the last call id number. */
  reasoning?: (step: Step, id: number) => AssistantContentBlock[];
  /** A call's input [`{ path }`]. */
  toolInput?: (id: number) => JsonObject;
  /** A tool result's text [`result <call id>`]. */
  resultText?: (step: Step, callId: string) => string;
}

/** What was appended per step, for properties that count (thinking tool turns, signatures). */
export interface AppendedStep<Step> {
  step: Step;
  calls: number;
}

/**
 * Appends a random but valid tool-loop conversation to a session, the way the providers'
 * property tests need it: every step but a turn's last calls at least one tool and gets all its
 * results in the next user message; the last step answers in text unless the session ends in a
 * tool loop; then a last user message unless it does.
 */
export function appendToolLoop<Step extends ToolLoopStep>(
  session: Session,
  turns: readonly ToolLoopTurn<Step>[],
  options: ToolLoopOptions<Step>,
): AppendedStep<Step>[] {
  const appended: AppendedStep<Step>[] = [];
  let id = 0;
  turns.forEach((turn, turnIndex) => {
    session.append({ role: 'user', content: turn.user });
    const lastTurn = turnIndex === turns.length - 1;
    const steps = turn.steps.length > 0 ? turn.steps : [options.answer];
    steps.forEach((step, stepIndex) => {
      const finalStep = stepIndex === steps.length - 1;
      const callsTools = !finalStep || (lastTurn && options.endInToolLoop);
      const calls = callsTools ? Math.max(step.calls, 1) : 0;
      const uses = Array.from({ length: calls }, (): ToolUseBlock => {
        id += 1;
        return {
          type: 'tool_use',
          id: `call_${id}`,
          name: TOOLS[id % TOOLS.length]!.name,
          input: options.toolInput?.(id) ?? { path: `f${id}` },
        };
      });
      const blocks: AssistantContentBlock[] = [...(options.reasoning?.(step, id) ?? [])];
      if (step.text !== undefined || calls === 0) blocks.push({ type: 'text', text: step.text ?? 'done' });
      session.append({ role: 'assistant', content: [...blocks, ...uses] });
      if (calls > 0) {
        session.append({
          role: 'user',
          content: uses.map((use) => ({
            type: 'tool_result' as const,
            toolUseId: use.id,
            content: [{ type: 'text' as const, text: options.resultText?.(step, use.id) ?? `result ${use.id}` }],
          })),
        });
      }
      appended.push({ step, calls });
    });
  });
  if (!options.endInToolLoop) session.appendUserText('next');
  return appended;
}

/** A user turn of plain text. */
export function textTurn<Step extends ToolLoopStep>(text: string, steps: readonly Step[]): ToolLoopTurn<Step> {
  return { user: [{ type: 'text', text }], steps };
}
