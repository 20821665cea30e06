import type { CacheModel, CacheVerdict, JudgeContext } from '../cache/models/cache-verdict.js';
import { normalizeWireBody } from '../cache/wire/normalize-wire-body.js';
import type { NormalizedWireBody } from '../cache/wire/wire-unit.js';
import type { ProviderId } from '../providers/adapter.js';

/**
 * A body the simulator sent, with its normalisation as the break watch and the miss cause read it
 * (`normalizeWireBody(body, provider)`) when the cache model already made it; null otherwise.
 */
export interface JudgedBody {
  body: unknown;
  normalized: NormalizedWireBody | null;
}

/**
 * `cache.judge(body)`, keeping the body the model normalised when it is the provider's own
 * normalisation: every later reader of the request takes it instead of normalising again (a
 * session body's normalisation walks its whole history).
 */
export function judgeBody(
  cache: CacheModel,
  provider: ProviderId,
  body: unknown,
  context: JudgeContext,
): { verdict: CacheVerdict; judged: JudgedBody } {
  const told: JudgedBody = { body, normalized: null };
  const verdict = cache.judge(body, {
    ...context,
    onNormalized: (normalized, format) => {
      told.normalized = format === provider ? normalized : null;
    },
  });
  return { verdict, judged: told };
}

/** The body's normalisation for `provider`: the one the cache model made, else made now. */
export function normalizedOf(judged: JudgedBody, provider: ProviderId): NormalizedWireBody {
  return judged.normalized ?? normalizeWireBody(judged.body, provider);
}
