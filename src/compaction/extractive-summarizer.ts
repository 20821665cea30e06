import { canonicalJson } from '../model/canonical-json.js';
import type { Message } from '../model/content.js';
import type { JsonValue } from '../model/json.js';
import { SUMMARY_ACK, SUMMARY_HEADER } from './history-analysis.js';
import { isPlaceholder, restoreIdsIn } from './markers.js';
import { emptySummary, type StructuredSummary } from './structured-summary.js';
import type { Summarizer, SummaryInput } from './summarizer.js';

export interface ExtractiveSummarizerOptions {
  /** Longest item kept in a list field, in characters. */
  maxItemChars?: number;
  /** Most items kept per list field (oldest dropped first). */
  maxItemsPerField?: number;
}

const DECISION = /\b(decided|decide|will use|chose|choose|going with|switch(?:ed)? to|plan is|instead of)\b/i;
const CONSTRAINT = /\b(must|never|always|don't|do not|only|prefer|avoid|make sure)\b/i;
const PATHLIKE = /^(?:[\w.-]+\/)+[\w.-]+$|^[\w-]+\.[a-z0-9]{1,6}$|^https?:\/\/\S+$/i;

/**
 * A summariser that needs no model: it extracts the eleven fields from the span by rule
 * (tool calls and their outcomes, paths in tool inputs, decision and constraint sentences,
 * questions) and merges them with the previous summary. Deterministic: the same span gives
 * the same summary. Used in tests, simulations and as the zero-cost fallback.
 *
 * @example
 * const summarizer = createExtractiveSummarizer();
 * const summary = summarizer.summarize({ sessionId: 's1', span, previous: null, notes: [], now: 0 });
 */
export function createExtractiveSummarizer(options: ExtractiveSummarizerOptions = {}): Summarizer {
  const maxChars = options.maxItemChars ?? 240;
  const maxItems = options.maxItemsPerField ?? 12;
  const clip = (text: string) => {
    const line = text.replace(/\s+/g, ' ').trim();
    return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
  };
  return {
    name: 'extractive',
    summarize(input: SummaryInput): StructuredSummary {
      const summary = emptySummary();
      const userTexts: string[] = [];
      const assistantTexts: string[] = [];
      const calls = new Map<string, { name: string; input: unknown }>();
      for (const message of input.span) collect(message, userTexts, assistantTexts, calls, summary, clip, input.restoreIds);
      summary.userGoal = input.previous?.userGoal || clip(userTexts[0] ?? '');
      summary.activeTasks = userTexts.slice(-3).map(clip);
      summary.decisions = sentences(assistantTexts)
        .filter((sentence) => DECISION.test(sentence))
        .map(clip);
      summary.constraintsAndPreferences = sentences(userTexts)
        .filter((sentence) => CONSTRAINT.test(sentence))
        .map(clip);
      summary.openQuestions = sentences(assistantTexts.slice(-3))
        .filter((sentence) => sentence.endsWith('?'))
        .map(clip);
      summary.keyFacts = assistantTexts.slice(-4).map((text) => clip(sentences([text])[0] ?? text));
      summary.nextSteps = assistantTexts.slice(-1).map(clip);
      summary.sessionNotes = [...input.notes];
      const merged = input.previous ? mergeSummaries(input.previous, summary) : summary;
      return capFields(merged, maxItems);
    },
  };
}

function collect(
  message: Message,
  userTexts: string[],
  assistantTexts: string[],
  calls: Map<string, { name: string; input: unknown }>,
  summary: StructuredSummary,
  clip: (text: string) => string,
  restoreIds: ReadonlyMap<string, string>,
): void {
  if (message.role === 'assistant') {
    for (const block of message.content) {
      if (block.type === 'text' && block.text !== SUMMARY_ACK) assistantTexts.push(block.text);
      if (block.type === 'tool_use') {
        calls.set(block.id, { name: block.name, input: block.input });
        for (const value of stringsIn(block.input)) if (PATHLIKE.test(value)) pushUnique(summary.filesAndResources, value);
      }
    }
    return;
  }
  for (const block of message.content) {
    if (block.type === 'text') {
      if (!block.text.startsWith(SUMMARY_HEADER)) userTexts.push(block.text);
      continue;
    }
    if (block.type !== 'tool_result') continue;
    const call = calls.get(block.toolUseId);
    const text = block.content.flatMap((inner) => (inner.type === 'text' ? [inner.text] : [])).join('\n');
    const ids = [
      ...new Set([restoreIds.get(block.toolUseId), ...restoreIdsIn(text)].filter((id): id is string => id !== undefined)),
    ];
    const label = `${call?.name ?? 'tool'}(${clip(canonicalJson((call?.input ?? {}) as JsonValue))})`;
    const firstLine = isPlaceholder(text) ? '' : clip(text.split('\n').find((line) => line.trim()) ?? '');
    const restorable = ids.length > 0 ? ` [restore: ${ids.join(', ')}]` : '';
    if (block.isError) summary.errorsAndResolutions.push(`${label} failed: ${firstLine}${restorable}`);
    else summary.completedWork.push(`${label}${firstLine ? ` -> ${firstLine}` : ''}${restorable}`);
  }
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

function sentences(texts: readonly string[]): string[] {
  return texts.flatMap((text) =>
    text
      .split(/(?<=[.!?])\s+|\n+/)
      .map((part) => part.trim())
      .filter(Boolean),
  );
}

function pushUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

/** Previous items first, then new ones; duplicates dropped. The newest user goal never replaces the first. */
export function mergeSummaries(previous: StructuredSummary, next: StructuredSummary): StructuredSummary {
  const merged: StructuredSummary = { ...next, userGoal: previous.userGoal || next.userGoal };
  for (const key of Object.keys(next) as Array<keyof StructuredSummary>) {
    if (key === 'userGoal' || key === 'activeTasks' || key === 'nextSteps' || key === 'sessionNotes') continue;
    const values: string[] = [];
    for (const item of [...previous[key], ...next[key]]) pushUnique(values, item);
    merged[key] = values;
  }
  return merged;
}

function capFields(summary: StructuredSummary, maxItems: number): StructuredSummary {
  const capped = { ...summary };
  for (const key of Object.keys(capped) as Array<keyof StructuredSummary>) {
    if (key === 'userGoal' || key === 'sessionNotes') continue;
    capped[key] = capped[key].slice(-maxItems);
  }
  return capped;
}
