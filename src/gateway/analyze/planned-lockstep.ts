import { isRecord, type JsonRecord, modelOf } from '../../cache/wire/json-helpers.js';
import { cacheControlTtl } from '../../cache/wire/normalize-anthropic.js';
import type { WireTtl } from '../../cache/wire/wire-unit.js';
import type { ProviderId } from '../../providers/adapter.js';
import { providerEntry } from '../../providers/registry.js';
import type { PlannedBody } from '../proxy/plan-cache-fields.js';
import { wireRouteOfProvider } from '../proxy/wire-route.js';

/**
 * Whether Cachet's plan for an Anthropic body leaves the client's breakpoints where they are: the
 * client marks exactly the blocks the plan marks (same paths, in prefix order), each with the
 * plan's TTL, sets no automatic breakpoint, and sends no string system prompt or string message
 * content (which the plan rewrites as one text block). The planned body then differs from the
 * client's only in marker objects and `diagnostics`, which leave its units unchanged: judged on
 * the same cache state, it gets the client body's verdict. Reads the body's markers only.
 */
export function planKeepsClientMarkers(body: JsonRecord, plan: PlannedBody, planTtl: WireTtl = '5m'): boolean {
  if (body.cache_control !== undefined) return false;
  if (typeof body.system === 'string' && body.system.length > 0) return false;
  const planned = plan.breakpoints;
  let matched = 0;
  // False when the block carries a marker the plan does not place, in the same order (no closure per block: this runs on every block).
  const agrees = (block: unknown, zone: 'tools' | 'system' | number, index: number): boolean => {
    if (!isRecord(block) || block.cache_control === undefined) return true;
    const ttl = cacheControlTtl(block.cache_control);
    if (ttl === null) return true;
    const path = typeof zone === 'number' ? `messages[${zone}].content[${index}]` : `${zone}[${index}]`;
    return ttl === planTtl && matched < planned.length && planned[matched++] === path;
  };
  const listAgrees = (list: unknown, zone: 'tools' | 'system' | number): boolean => {
    if (!Array.isArray(list)) return true;
    for (let index = 0; index < list.length; index++) if (!agrees(list[index], zone, index)) return false;
    return true;
  };
  if (!listAgrees(body.tools, 'tools') || !listAgrees(body.system, 'system')) return false;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let message = 0; message < messages.length; message++) {
    const record = messages[message];
    if (!isRecord(record)) continue;
    if (typeof record.content === 'string' && record.content.length > 0) return false;
    if (!listAgrees(record.content, message)) return false;
  }
  return matched === planned.length;
}

/** Whether the planned body judges as the client's: Anthropic rules on both, and the plan keeps the client's markers. */
export function keepsLockstep(body: JsonRecord, plan: PlannedBody, provider: ProviderId): boolean {
  return plannedOnAnthropicRules(body, provider) && planKeepsClientMarkers(body, plan);
}

/** Whether the body is planned as an Anthropic body and judged under Anthropic rules (the first half of `keepsLockstep`). */
export function plannedOnAnthropicRules(body: JsonRecord, provider: ProviderId): boolean {
  // The rules the client's model applies to this body (`createCacheModel` routes by `modelOf`).
  return wireRouteOfProvider(provider) === 'anthropic' && providerEntry(provider).route(modelOf(body)).rules === 'anthropic';
}
