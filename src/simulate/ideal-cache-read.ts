import {
  longestCacheLifetimeMs as longestLifetimeOfRules,
  minimumPrefixTokens,
  unitTokensWithFraming,
} from '../cache/wire/cache-rules.js';
import { normalizeWireBody } from '../cache/wire/normalize-wire-body.js';
import { type NormalizedWireBody, unitIdentity } from '../cache/wire/wire-unit.js';
import type { ProviderId } from '../providers/adapter.js';
import { deepSeekThinks } from '../providers/deepseek/models.js';
import { providerEntry } from '../providers/registry.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** The longest time any cache entry of the provider can live without being read. */
export function longestCacheLifetimeMs(provider: ProviderId, model: string): number {
  return longestLifetimeOfRules(providerEntry(provider).route(model).rules);
}

/**
 * The physical limit of cache reads, request by request, for one workload on one provider.
 * Each request is rendered once in a reference layout (Cachet's zones without the turn tail and
 * without padding); a request's ideal is the tokens of the longest run of leading units it
 * shares with the previous reference body — what the provider already processed and is
 * unchanged — plus, for local engines and DeepSeek, the previous reply the slot or unit still holds. New user input,
 * new tool results, the tail and (for hosted APIs) the previous reply are excluded. It is 0 for
 * the first request, after a gap longer than the provider's longest cache lifetime, and when the
 * shared prefix is below the provider's minimum cacheable prefix. The same numbers serve every
 * strategy.
 */
export class IdealCacheReads {
  private previous: { units: string[]; tokens: number[]; at: number; messageCount: number } | null = null;

  constructor(
    private readonly provider: ProviderId,
    private readonly model: string,
    private readonly counter: TokenCounter,
  ) {}

  /** The ideal for the next request, given its reference body (no tail) and start time. */
  next(referenceBody: unknown, at: number): number {
    const body = normalizeWireBody(referenceBody, this.provider);
    const units = body.units.map(unitIdentity);
    const tokens = unitTokensWithFraming(body, this.counter);
    const previous = this.previous;
    this.previous = { units, tokens, at, messageCount: messageCount(body) };
    if (!previous || at - previous.at > longestCacheLifetimeMs(this.provider, this.model)) return 0;
    let shared = 0;
    while (shared < units.length && shared < previous.units.length && units[shared] === previous.units[shared]) shared++;
    const rules = providerEntry(this.provider).route(this.model).rules;
    if ((rules === 'local' || rules === 'deepseek') && shared === previous.units.length) {
      // The slot (local) or the end-of-output unit (DeepSeek) also holds the reply: the message that follows the previous prompt.
      const replyMessage = previous.messageCount;
      let end = shared;
      while (end < units.length && body.units[end]?.messageIndex === replyMessage) end++;
      // In DeepSeek's thinking mode a reply without tool calls was generated after reasoning no later request carries.
      const calledTools = body.units.slice(shared, end).some((unit) => unit.kind === 'tool_use');
      if (rules === 'local' || calledTools || !deepSeekThinks(referenceBody)) shared = end;
    }
    let total = 0;
    for (let index = 0; index < shared; index++) total += tokens[index] as number;
    // A shared prefix below the provider's minimum cacheable size can never be read: no entry
    // exists for it, whatever the layout, so it is not part of the physical limit.
    return total < minimumPrefixTokens(body) ? 0 : total;
  }
}

function messageCount(body: NormalizedWireBody): number {
  let highest = -1;
  for (const unit of body.units) if (unit.messageIndex !== null && unit.messageIndex > highest) highest = unit.messageIndex;
  return highest + 1;
}
