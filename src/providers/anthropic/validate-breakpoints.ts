import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import type { BreakpointWarning } from '../shared/breakpoint-budget.js';
import { ANTHROPIC_MAX_BREAKPOINTS } from './models.js';

interface Marked {
  path: string;
  ttl: string;
}

type MaybeMarked = { type?: string; text?: string; cache_control?: { type: string; ttl?: string } | null; content?: unknown };

interface Findings {
  marked: Marked[];
  warnings: BreakpointWarning[];
}

function visit(block: MaybeMarked, path: string, found: Findings): void {
  const control = block.cache_control;
  if (control) {
    found.marked.push({ path, ttl: control.ttl ?? '5m' });
    if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      found.warnings.push({
        code: 'not-cacheable',
        path,
        message: `${path}: cache_control is not allowed on ${block.type} blocks`,
      });
    } else if (block.type === 'text' && block.text === '') {
      found.warnings.push({ code: 'not-cacheable', path, message: `${path}: cache_control is not allowed on empty text blocks` });
    }
  }
  if (block.type === 'tool_result' && Array.isArray(block.content)) {
    (block.content as MaybeMarked[]).forEach((inner, index) => {
      visit(inner, `${path}.content[${index}]`, found);
    });
  }
}

function visitContent(content: readonly unknown[], messageIndex: number, found: Findings): void {
  content.forEach((block, index) => {
    // Only a marked block or a tool result's parts need their path (long histories: thousands per body).
    const maybe = block as MaybeMarked;
    if (maybe.cache_control || maybe.type === 'tool_result') visit(maybe, `messages[${messageIndex}].content[${index}]`, found);
  });
}

/**
 * Findings of a message content that cannot change (a frozen array of frozen blocks: the
 * converter shares one per persisted message between bodies), kept by content array and index.
 */
const contentFindings = new WeakMap<readonly unknown[], (Findings & { messageIndex: number }) | null>();

function frozenContentFindings(content: readonly unknown[], messageIndex: number): Findings | null {
  if (!Object.isFrozen(content)) return null;
  const known = contentFindings.get(content);
  if (known === null || known?.messageIndex === messageIndex) return known;
  if (!content.every(isDeepFrozen)) {
    contentFindings.set(content, null);
    return null;
  }
  const found: Findings = { marked: [], warnings: [] };
  visitContent(content, messageIndex, found);
  contentFindings.set(content, { ...found, messageIndex });
  return found;
}

/** A block whose markers cannot change: frozen, and so are a tool result's parts. */
function isDeepFrozen(block: unknown): boolean {
  if (!Object.isFrozen(block)) return false;
  const inner = (block as MaybeMarked).content;
  return !Array.isArray(inner) || (Object.isFrozen(inner) && inner.every((part) => Object.isFrozen(part)));
}

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
  return validateMarkers(body, (found) => {
    body.messages.forEach((message, messageIndex) => {
      if (typeof message.content === 'string') return;
      const shared = frozenContentFindings(message.content, messageIndex);
      if (!shared) {
        visitContent(message.content, messageIndex, found);
        return;
      }
      for (const entry of shared.marked) found.marked.push(entry);
      for (const warning of shared.warnings) found.warnings.push(warning);
    });
  });
}

/**
 * @internal `validateAnthropicBreakpoints` for a body the converter just built, visiting only the
 * messages at `messageIndexes` (ascending): every other message's content is a converted history
 * message checked marker-free when it was converted (`hasMarkerFindings`), and unmarked since. The
 * findings are the same; the work is for the new and marked messages, not the whole history.
 */
export function validateConvertedBreakpoints(
  body: MessageCreateParamsNonStreaming,
  messageIndexes: readonly number[],
): BreakpointWarning[] {
  return validateMarkers(body, (found) => {
    for (const messageIndex of messageIndexes) {
      const content = body.messages[messageIndex]?.content;
      if (content !== undefined && typeof content !== 'string') visitContent(content, messageIndex, found);
    }
  });
}

/** True when a message content carries a marker or a block the validator would report. */
export function hasMarkerFindings(content: readonly unknown[]): boolean {
  const found: Findings = { marked: [], warnings: [] };
  visitContent(content, 0, found);
  return found.marked.length > 0 || found.warnings.length > 0;
}

/** Tools and system visited, then the messages by `visitMessages`, then the body-wide rules. */
function validateMarkers(body: MessageCreateParamsNonStreaming, visitMessages: (found: Findings) => void): BreakpointWarning[] {
  const warnings: BreakpointWarning[] = [];
  const marked: Marked[] = [];
  const found = { marked, warnings };
  (body.tools ?? []).forEach((tool, index) => {
    visit(tool as MaybeMarked, `tools[${index}]`, found);
  });
  if (Array.isArray(body.system))
    body.system.forEach((block, index) => {
      visit(block as MaybeMarked, `system[${index}]`, found);
    });
  visitMessages(found);
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
