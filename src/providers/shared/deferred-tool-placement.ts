import type { ToolDefinition } from '../../model/content.js';
import type { CanonicalRequest } from '../../model/request.js';

/**
 * Where deferred tools go on a provider that cannot defer loading. `upfront`: every deferred
 * definition is declared from the first request (a larger prefix, never a break). `append`: a
 * definition joins `tools` when history loads it (a smaller prefix until then; each load
 * changes the tools zone, which re-writes the whole cached prefix once).
 */
export type DeferredToolPlacement = 'upfront' | 'append';

/**
 * The request's tools as a provider without deferral must send them: the session's tools, then
 * the deferred ones (`upfront`: all of them in declaration order; `append`: the loaded ones in
 * load order).
 *
 * @example
 * toChatTools(toolsWithDeferred(request, options.deferredTools ?? 'append'));
 */
export function toolsWithDeferred(request: CanonicalRequest, placement: DeferredToolPlacement): ToolDefinition[] {
  const deferred = request.deferredTools;
  if (!deferred || deferred.tools.length === 0) return request.tools;
  const known = new Set(request.tools.map((tool) => tool.name));
  const chosen =
    placement === 'upfront'
      ? deferred.tools
      : deferred.loaded.flatMap((name) => deferred.tools.filter((tool) => tool.name === name));
  return [...request.tools, ...chosen.filter((tool) => !known.has(tool.name))];
}
