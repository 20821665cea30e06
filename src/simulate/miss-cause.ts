import { diffNormalized } from '../cache/break/diff-wire-bodies.js';
import type { CacheVerdict } from '../cache/models/cache-verdict.js';
import { cacheRulesFor } from '../cache/wire/cache-rules.js';
import type { CacheBreakCause } from '../events/catalog.js';
import type { ProviderId } from '../providers/adapter.js';
import { type JudgedBody, normalizedOf } from './judged-body.js';

/** Why a request read less than its ideal: a break cause, or a reason the cache rules give. */
export type MissCause = CacheBreakCause | 'no-breakpoint';

/** OpenAI automatic caching reads in 128-token steps: shortfalls below one step are not misses. */
const OPENAI_INCREMENT = 128;
/**
 * On a local engine the tail's message header takes the place of the generation prompt's
 * (`<|im_start|>system` instead of `<|im_start|>assistant`): a few framing tokens, not a miss.
 */
const LOCAL_FRAMING_TOKENS = 8;

export function missCauseOf(
  verdict: CacheVerdict,
  idealTokens: number,
  previous: JudgedBody | null,
  current: JudgedBody,
  provider: ProviderId,
  historyRewritten: boolean,
): MissCause | null {
  const cause = structuralMissCause(verdict, idealTokens, previous, current, provider);
  // Compaction's rewrite is deliberate and costed: name it, not as an accidental history edit.
  if (historyRewritten && cause && ['history-edited', 'unknown', 'no-breakpoint', 'template-rerender'].includes(cause)) {
    return 'compaction';
  }
  return cause;
}

function structuralMissCause(
  verdict: CacheVerdict,
  idealTokens: number,
  previous: JudgedBody | null,
  current: JudgedBody,
  provider: ProviderId,
): MissCause | null {
  const shortfall = idealTokens - verdict.cacheReadTokens;
  if (shortfall <= 0) return null;
  const normalized = normalizedOf(current, provider);
  const rules = cacheRulesFor(normalized);
  if (rules === 'openai' && shortfall < OPENAI_INCREMENT) return null;
  if (rules === 'local' && shortfall <= LOCAL_FRAMING_TOKENS) return null;
  if (verdict.missCause) return verdict.missCause;
  if (previous !== null) {
    const report = diffNormalized(normalizedOf(previous, provider), normalized);
    if (report.cause) return report.cause;
  }
  // Nothing changed and nothing expired: the rules only cache what a marker covers.
  return rules === 'anthropic' ? 'no-breakpoint' : 'unknown';
}
