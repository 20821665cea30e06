import { exactTokenCounter } from '../../tokens/exact-token-counter.js';

/**
 * A counter for tests: one token per whitespace-separated word, so expected figures can be
 * computed by hand from the fixtures. Not exported from the package.
 */
export const wordCounter = exactTokenCounter('words', (text) => text.split(/\s+/).filter(Boolean).length);

/** `count` distinct words (`w0 w1 ...`) with a prefix, so texts of known token counts differ. */
export function words(count: number, prefix = 'w'): string {
  return Array.from({ length: count }, (_, index) => `${prefix}${index}`).join(' ');
}

export interface AnthropicFixture {
  model?: string;
  systemTokens?: number;
  systemBreakpoint?: '5m' | '1h' | null;
  /** Message texts in order, alternating user/assistant from user. */
  turns: string[];
  /** Place a breakpoint on the last block of the last message. */
  lastBreakpoint?: '5m' | '1h' | null;
  tools?: Array<Record<string, unknown>>;
  extra?: Record<string, unknown>;
}

/** An Anthropic Messages body built from a few numbers. */
export function anthropicBody(fixture: AnthropicFixture): Record<string, unknown> {
  const systemBreakpoint = fixture.systemBreakpoint === undefined ? '5m' : fixture.systemBreakpoint;
  const messages = fixture.turns.map((text, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [
      {
        type: 'text',
        text,
        ...(index === fixture.turns.length - 1 && fixture.lastBreakpoint
          ? { cache_control: control(fixture.lastBreakpoint) }
          : {}),
      },
    ],
  }));
  return {
    model: fixture.model ?? 'claude-sonnet-4-5',
    max_tokens: 1024,
    ...(fixture.tools ? { tools: fixture.tools } : {}),
    system: [
      {
        type: 'text',
        text: words(fixture.systemTokens ?? 2000, 's'),
        ...(systemBreakpoint ? { cache_control: control(systemBreakpoint) } : {}),
      },
    ],
    messages,
    ...fixture.extra,
  };
}

function control(ttl: '5m' | '1h'): Record<string, unknown> {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}
