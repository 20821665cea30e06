/** Wire bodies for the break tests, one builder per provider. Not exported from the package. */
import { words } from './fixtures.js';

export const TOOLS_ANTHROPIC = [
  {
    name: 'read_file',
    description: 'Read a file from the workspace.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  },
  {
    name: 'write_file',
    description: 'Write a file to the workspace.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

export function anthropicRequest(options: {
  time?: string;
  persona?: string;
  tools?: unknown[];
  messages?: unknown[];
  model?: string;
  extra?: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    model: options.model ?? 'claude-sonnet-4-5',
    max_tokens: 2048,
    tools: options.tools ?? TOOLS_ANTHROPIC,
    system: [
      { type: 'text', text: options.persona ?? `You are a coding agent. ${words(1500, 'p')}` },
      {
        type: 'text',
        text: `Current time: ${options.time ?? '2026-11-21T10:00:00Z'}. Project: cachet.`,
        cache_control: { type: 'ephemeral' },
      },
    ],
    messages: options.messages ?? [
      { role: 'user', content: [{ type: 'text', text: 'Fix the failing test.', cache_control: { type: 'ephemeral' } }] },
    ],
    ...options.extra,
  };
}

/** A user/assistant exchange of `count` messages after the first user message, last one marked. */
export function anthropicHistory(count: number, marked = true): unknown[] {
  return Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [
      {
        type: 'text',
        text: `message ${index}: ${words(30, `m${index}x`)}`,
        ...(marked && index === count - 1 ? { cache_control: { type: 'ephemeral' } } : {}),
      },
    ],
  }));
}

export function chatRequest(
  options: { system?: string; messages?: unknown[]; model?: string; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    model: options.model ?? 'gpt-4.1',
    tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }],
    messages: [
      { role: 'system', content: options.system ?? `You are helpful. ${words(1500)} Today is Friday, 21 Nov 2026.` },
      ...(options.messages ?? [{ role: 'user', content: 'hi' }]),
    ],
    ...options.extra,
  };
}
