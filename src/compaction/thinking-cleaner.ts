import type { AssistantContentBlock, Message } from '../model/content.js';
import { isTurnStart } from './history-analysis.js';

/**
 * How a provider wants reasoning from earlier turns sent back.
 * - `signed-blocks`: Anthropic. Thinking blocks are kept (signed ones byte-for-byte); an unsigned
 *   copy beside a signed block (a `reasoning_content` duplicate) is dropped.
 * - `reasoning-content`: DeepSeek, Kimi, MiMo-style APIs. Reasoning of assistant messages before
 *   the last user message is dropped, except on messages with tool calls (the API requires it).
 * - `none`: the model does not think; reasoning is left as it is (adapters omit it).
 */
export type ThinkingStyle = 'signed-blocks' | 'reasoning-content' | 'none';

export interface ThinkingStyleRule {
  /** Matched against the model id from its start. */
  modelPrefix: string;
  style: ThinkingStyle;
  /** Whether assistant tool-call messages must carry (possibly empty) reasoning. */
  requiresReasoningOnToolCalls: boolean;
  source: string;
}

/** Known thinking styles by model family (first match wins). Users can pass their own table. */
export const THINKING_STYLE_RULES: readonly ThinkingStyleRule[] = [
  {
    modelPrefix: 'claude-',
    style: 'signed-blocks',
    requiresReasoningOnToolCalls: false,
    source: 'platform.claude.com extended thinking docs, 2026-08',
  },
  {
    modelPrefix: 'deepseek-reasoner',
    style: 'reasoning-content',
    requiresReasoningOnToolCalls: true,
    source: 'api-docs.deepseek.com thinking mode, 2026-08',
  },
  {
    modelPrefix: 'deepseek-',
    style: 'reasoning-content',
    requiresReasoningOnToolCalls: true,
    source: 'api-docs.deepseek.com thinking mode, 2026-08',
  },
  {
    modelPrefix: 'kimi-',
    style: 'reasoning-content',
    requiresReasoningOnToolCalls: true,
    source: 'platform.moonshot.ai thinking models, 2026-08',
  },
  {
    modelPrefix: 'mimo-',
    style: 'reasoning-content',
    requiresReasoningOnToolCalls: true,
    source: 'Xiaomi MiMo API docs, 2026-08',
  },
];

export function thinkingRuleFor(
  model: string,
  rules: readonly ThinkingStyleRule[] = THINKING_STYLE_RULES,
): ThinkingStyleRule | null {
  return rules.find((rule) => model.startsWith(rule.modelPrefix)) ?? null;
}

function isReasoning(block: AssistantContentBlock): boolean {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

/**
 * Clean reasoning of earlier turns for a provider's style. Signed thinking blocks are never
 * edited: a block is kept whole or removed whole. A message is never left empty.
 * Only messages from `fromIndex` on are touched, so a cleaning that rides along with another
 * rewrite never moves its first changed byte earlier. Returns the new history (unchanged
 * messages keep their identity) and whether anything changed.
 */
export function cleanThinking(
  history: readonly Message[],
  style: ThinkingStyle,
  fromIndex = 0,
): { history: Message[]; changed: boolean } {
  let changed = false;
  const result = history.slice();
  if (style === 'none') return { history: result, changed };
  let lastUserTurn = -1;
  history.forEach((message, index) => {
    if (isTurnStart(message)) lastUserTurn = index;
  });
  result.forEach((message, index) => {
    if (message.role !== 'assistant' || index < fromIndex) return;
    let content: AssistantContentBlock[] = message.content;
    if (style === 'signed-blocks') {
      const hasSigned = content.some(
        (block) => (block.type === 'thinking' && block.signature) || block.type === 'redacted_thinking',
      );
      if (hasSigned) content = content.filter((block) => !(block.type === 'thinking' && !block.signature));
    } else {
      const keep = index > lastUserTurn || content.some((block) => block.type === 'tool_use');
      if (!keep) content = content.filter((block) => !isReasoning(block));
    }
    if (content.length !== message.content.length && content.length > 0) {
      result[index] = { role: 'assistant', content };
      changed = true;
    }
  });
  return { history: result, changed };
}

/**
 * After a switch to a model that requires reasoning on tool-call messages, give every
 * assistant tool-call message without reasoning an empty thinking block (it becomes an empty
 * `reasoning_content`), so the provider does not reject the history.
 */
export function backfillReasoning(history: readonly Message[]): { history: Message[]; changed: boolean } {
  let changed = false;
  const result = history.map((message): Message => {
    if (message.role !== 'assistant') return message;
    if (!message.content.some((block) => block.type === 'tool_use') || message.content.some(isReasoning)) return message;
    changed = true;
    return { role: 'assistant', content: [{ type: 'thinking', thinking: '' }, ...message.content] };
  });
  return { history: result, changed };
}
