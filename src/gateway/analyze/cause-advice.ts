import type { CacheBreakCause } from '../../events/catalog.js';

/** What to change for each cause of a miss, in one sentence. */
export const CAUSE_ADVICE: Readonly<Record<CacheBreakCause | 'no-breakpoint', string>> = {
  clock: 'Move the current date/time out of the system prompt into the last user message (the turn tail).',
  'tool-order': 'Sort tool definitions by name (or keep registration order fixed) so every request sends them in the same order.',
  'tools-changed': 'Keep the tool set fixed for a session; announce new tools in the history instead of editing definitions.',
  'system-changed': 'Keep the system prompt byte-stable; put per-turn context (memory recall, working state) in the turn tail.',
  'history-edited': 'Append to the history instead of rewriting it; compact only when the cache is already cold.',
  'model-changed': 'Avoid switching models mid-session: each model has its own cache.',
  'params-changed': 'Keep tool_choice, thinking and effort fixed within a session; each change re-bills the whole history.',
  'ttl-expired':
    'Requests are further apart than the cache lifetime: use 1-hour breakpoints (Anthropic) or 24h retention (OpenAI).',
  'below-minimum': "The cacheable prefix is below the model's minimum: nothing is cached until it grows (or pad it once).",
  'lookback-exceeded':
    "More than 20 blocks since the last breakpoint: add an intermediate breakpoint (Cachet's lookback guard, `cachet proxy --plan`).",
  'template-rerender': 'The chat template rewrites earlier turns: keep reasoning in history or use a template that preserves it.',
  unknown:
    'The provider read less than expected with no visible change: check for server-side eviction or routing (prompt_cache_key).',
  'no-breakpoint':
    'No cache_control breakpoint covers the history: place one at the end of each request (`cachet proxy --plan` does).',
  compaction: 'A deliberate compaction rewrote the history; it is costed when it happens — time it for a cold cache.',
  'route-changed':
    'The router sent the request to another upstream provider, whose cache is empty: pin the provider or keep a session key.',
};
