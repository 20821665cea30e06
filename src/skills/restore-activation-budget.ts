import type { Message } from '../model/content.js';
import { ActivationBudget, type ActivationBudgetLimits, type SkillLogger } from './activation-budget.js';
import { preloadedSkillHeading } from './discovery-index.js';
import { SKILL_LOAD_TOOL } from './skill-tools.js';
import { charsPerTokenEstimate, type TextTokenCounter } from './text-token-counter.js';

/**
 * Rebuild a session's activation budget from its history, for a session restored with
 * `Session.fromJSON` (the budget is behaviour state, not serialised). Every successful
 * `skill_load` whose result carries a body (it starts with `# Skill: <name>` and a blank line;
 * pointers add ` (source: ...)` to the heading) counts as one explicit activation, in history
 * order, with the tokens of that result. Replaying does not log or enforce caps: what is in
 * history was allowed when it happened.
 *
 * @example
 * const session = Session.fromJSON(saved, { bus });
 * const budget = restoreActivationBudget(session.history, { preloaded: ['pdf-tools'] });
 */
export function restoreActivationBudget(
  history: readonly Message[],
  options: {
    limits?: Partial<ActivationBudgetLimits>;
    preloaded?: Iterable<string>;
    logger?: SkillLogger;
    tokenCounter?: TextTokenCounter;
  } = {},
): ActivationBudget {
  const counter = options.tokenCounter ?? charsPerTokenEstimate;
  const loads: Array<{ name: string; tokens: number; toolUseId: string }> = [];
  history.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const answer = history[index + 1];
    for (const block of message.content) {
      if (block.type !== 'tool_use' || block.name !== SKILL_LOAD_TOOL.name || typeof block.input.name !== 'string') continue;
      const result = answer?.content.find((item) => item.type === 'tool_result' && item.toolUseId === block.id);
      if (result?.type !== 'tool_result' || result.isError) continue;
      const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      if (text.startsWith(`${preloadedSkillHeading(block.input.name)}\n\n`)) {
        loads.push({ name: block.input.name, tokens: counter.countText(text, 'prose'), toolUseId: block.id });
      }
    }
  });
  const budget = new ActivationBudget({
    limits: {
      maxExplicitActivations: Number.MAX_SAFE_INTEGER,
      warnTokens: Number.MAX_SAFE_INTEGER,
      hardCapTokens: Number.MAX_SAFE_INTEGER,
    },
    preloaded: options.preloaded,
  });
  for (const load of loads) budget.activate(load.name, load.tokens, load.toolUseId);
  return budget.withLimits(options.limits ?? {}, options.logger);
}
