import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { BreakpointWarning } from '../shared/breakpoint-budget.js';
import { ANTHROPIC_MAX_BREAKPOINTS } from './models.js';

interface Marked {
  path: string;
  ttl: string;
}

type MaybeMarked = { type?: string; text?: string; cache_control?: { type: string; ttl?: string } | null; content?: unknown };

/**
 * Check the cache markers of a finished Messages API body, however they got there (Cachet's
 * plan, a caller's own markers, a harness that post-processes bodies): at most four including
 * top-level automatic caching, none on thinking, redacted thinking or empty text, and no 1h
 * marker after a 5m one. Returns warnings instead of throwing; an empty list means the API will
 * accept the markers.
 *
 * @example
 * const warnings = validateAnthropicBreakpoints(body);
 * if (warnings.length > 0) console.warn(warnings.map((warning) => warning.message).join('\n'));
 */
export function validateAnthropicBreakpoints(body: MessageCreateParamsNonStreaming): BreakpointWarning[] {
  const warnings: BreakpointWarning[] = [];
  const marked: Marked[] = [];
  const visit = (block: MaybeMarked, path: string) => {
    const control = block.cache_control;
    if (control) {
      marked.push({ path, ttl: control.ttl ?? '5m' });
      if (block.type === 'thinking' || block.type === 'redacted_thinking') {
        warnings.push({ code: 'not-cacheable', path, message: `${path}: cache_control is not allowed on ${block.type} blocks` });
      } else if (block.type === 'text' && block.text === '') {
        warnings.push({ code: 'not-cacheable', path, message: `${path}: cache_control is not allowed on empty text blocks` });
      }
    }
    if (block.type === 'tool_result' && Array.isArray(block.content)) {
      (block.content as MaybeMarked[]).forEach((inner, index) => {
        visit(inner, `${path}.content[${index}]`);
      });
    }
  };
  (body.tools ?? []).forEach((tool, index) => {
    visit(tool as MaybeMarked, `tools[${index}]`);
  });
  if (Array.isArray(body.system))
    body.system.forEach((block, index) => {
      visit(block as MaybeMarked, `system[${index}]`);
    });
  body.messages.forEach((message, messageIndex) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, index) => {
      // Only a marked block or a tool result's parts need their path (long histories: thousands per body).
      const maybe = block as MaybeMarked;
      if (maybe.cache_control || maybe.type === 'tool_result') visit(maybe, `messages[${messageIndex}].content[${index}]`);
    });
  });
  // Automatic caching sits on the last cacheable block, after every explicit marker.
  if (body.cache_control) marked.push({ path: 'cache_control', ttl: body.cache_control.ttl ?? '5m' });

  if (marked.length > ANTHROPIC_MAX_BREAKPOINTS) {
    warnings.push({
      code: 'too-many-breakpoints',
      path: marked.map((entry) => entry.path).join(', '),
      message: `${marked.length} cache breakpoints; the API accepts at most ${ANTHROPIC_MAX_BREAKPOINTS} (automatic caching counts as one)`,
    });
  }
  let seenShort: string | null = null;
  for (const entry of marked) {
    if (entry.ttl === '5m') seenShort ??= entry.path;
    else if (seenShort !== null) {
      warnings.push({
        code: 'ttl-order',
        path: entry.path,
        message: `${entry.path}: a 1h breakpoint after the 5m breakpoint at ${seenShort}; 1h entries must come first`,
      });
    }
  }
  return warnings;
}
