import { CachetError } from '../model/errors.js';
import type { CanonicalRequest, Zone } from '../model/request.js';
import { longestCommonPrefix, type PrefixDivergence } from './longest-common-prefix.js';

/** A request's cached prefix changed where the cache contract says it must not. */
export class PrefixInstabilityError extends CachetError {
  /** Index in the `requests` array of the later request of the failing pair. */
  readonly requestIndex: number;
  /** Zone of the block that diverged in the earlier request. */
  readonly zone: Zone | 'model';
  readonly path: string;
  readonly divergence: PrefixDivergence | null;
  constructor(requestIndex: number, zone: Zone | 'model', path: string, message: string, divergence: PrefixDivergence | null) {
    super('unstable_prefix', message);
    this.requestIndex = requestIndex;
    this.zone = zone;
    this.path = path;
    this.divergence = divergence;
  }
}

export interface StablePrefixOptions {
  /**
   * The last zone that must carry over unchanged from each request to the next. `history`
   * (default): everything persisted, i.e. an append-only session. `session` or `global`:
   * only the static zones, for sequences that include a deliberate history rewrite.
   */
  through?: Exclude<Zone, 'tail'>;
}

const ZONE_ORDER: Record<Zone, number> = { global: 0, session: 1, history: 2, tail: 3 };

/**
 * Assert that each request's persisted prefix (every block before the tail, or up to the
 * zone given by `through`) is carried byte for byte into the next request. Throws a
 * `PrefixInstabilityError` naming the pair, the zone and block that diverged, with short
 * excerpts of both sides around the first differing byte.
 *
 * @example
 * const first = assemble(session);
 * session.append(reply); session.appendUserText('next');
 * assertStablePrefix([first, assemble(session)]);
 */
export function assertStablePrefix(requests: readonly CanonicalRequest[], options: StablePrefixOptions = {}): void {
  const limit = ZONE_ORDER[options.through ?? 'history'];
  for (let index = 1; index < requests.length; index++) {
    const before = requests[index - 1] as CanonicalRequest;
    const after = requests[index] as CanonicalRequest;
    const pair = `request ${index - 1} → request ${index}`;
    if (before.model !== after.model) {
      throw new PrefixInstabilityError(
        index,
        'model',
        'model',
        `${pair}: model changed from ${JSON.stringify(before.model)} to ${JSON.stringify(after.model)}; every provider caches per model, so nothing of the prefix is reused`,
        null,
      );
    }
    // The blocks of `before` that must survive: all blocks in zones up to the limit.
    let required = 0;
    before.blocks.forEach((block, blockIndex) => {
      if (ZONE_ORDER[block.zone] <= limit) required = blockIndex + 1;
    });
    const common = longestCommonPrefix(before, after);
    if (common.blocks >= required) continue;
    const divergence = common.divergence;
    const left = divergence?.a;
    const right = divergence?.b;
    const zone = left?.zone ?? 'tail';
    const path = left?.path ?? '(none)';
    const lines = [
      `${pair}: the ${zone} zone changed at ${path} (block ${common.blocks} of ${required} that must stay stable; ${common.bytes} bytes still shared)`,
      `  before: ${left ? `${left.path} ${left.excerpt}` : '(no block)'}`,
      `  after:  ${right ? `${right.path} [${right.zone}] ${right.excerpt}` : '(no block: the later request is shorter; was history rewritten or truncated?)'}`,
    ];
    throw new PrefixInstabilityError(index, zone, path, lines.join('\n'), divergence);
  }
}
