import type { CachePointBlock } from '@aws-sdk/client-bedrock-runtime';
import { type AdapterWarning, adapterWarning } from '../../model/adapter-warning.js';
import {
  type AnthropicCacheState,
  type BreakpointSlot,
  type CallerMarker,
  type PlannedBreakpoint,
  planBreakpoints,
  type ZoneTtls,
} from '../anthropic/place-breakpoints.js';
import type { BedrockModelRow, BedrockTtl } from './models.js';

export type BedrockCheckpointMode = 'plan' | 'none';

export interface BedrockCheckpointInput {
  slots: readonly BreakpointSlot[];
  mode: BedrockCheckpointMode;
  ttl: ZoneTtls;
  row: BedrockModelRow;
  sessionMinTokens: number;
  previous: AnthropicCacheState | null | undefined;
  lastAssistantMessageIndex: number | null;
  markers: readonly CallerMarker[];
  finalRequest?: boolean;
}

export interface BedrockCheckpointPlan {
  checkpoints: PlannedBreakpoint[];
  warnings: AdapterWarning[];
  cacheState: AnthropicCacheState;
}

/**
 * Choose the `cachePoint` positions of a Converse request. The choice is Anthropic's plan (the
 * same zones, priorities, lookback guard and TTL order: Converse also requires TTLs not to
 * increase from tools to system to messages), bounded by the Bedrock row: its checkpoint
 * limit, the fields that accept checkpoints (slots elsewhere arrive non-cacheable), the TTLs it
 * accepts (1h falls back to 5m with a warning) and its cap on the cached prefix (a checkpoint
 * past the cap moves back to the last block under it, or is dropped).
 *
 * @example
 * const plan = planBedrockCheckpoints({ slots, mode: 'plan', ttl, row: resolveBedrockModel(modelId),
 *   sessionMinTokens: 1024, previous: undefined, lastAssistantMessageIndex: 3, markers: [] });
 */
export function planBedrockCheckpoints(input: BedrockCheckpointInput): BedrockCheckpointPlan {
  const warnings: AdapterWarning[] = [];
  const ttl: ZoneTtls = {
    global: acceptedTtl(input.ttl.global, input.row, 'global', warnings),
    session: acceptedTtl(input.ttl.session, input.row, 'session', warnings),
    history: acceptedTtl(input.ttl.history, input.row, 'history', warnings),
  };
  const markers = input.markers.map((marker) =>
    marker.ttl ? { ...marker, ttl: acceptedTtl(marker.ttl, input.row, marker.path, warnings) } : marker,
  );
  const plan = planBreakpoints({
    slots: input.slots,
    mode: input.mode,
    ttl,
    floorTokens: input.row.minimumTokensPerCheckpoint,
    sessionMinTokens: input.sessionMinTokens,
    previous: input.previous,
    lastAssistantMessageIndex: input.lastAssistantMessageIndex,
    markers,
    maxBreakpoints: input.row.maxCheckpoints,
    ...(input.finalRequest ? { finalRequest: true } : {}),
  });
  warnings.push(
    ...plan.warnings.map((warning) => ({ ...warning, message: warning.message.replaceAll('cache_control', 'cachePoint') })),
  );
  const checkpoints = applyPrefixCap(plan.breakpoints, input.slots, input.row, warnings);
  return { checkpoints, warnings, cacheState: plan.cacheState };
}

function acceptedTtl(ttl: BedrockTtl, row: BedrockModelRow, where: string, warnings: AdapterWarning[]): BedrockTtl {
  if (row.ttlOptions.includes(ttl)) return ttl;
  const fallback = row.ttlOptions[0] ?? '5m';
  warnings.push(
    adapterWarning('ttl-unavailable', `${where}: ttl ${ttl} is not offered for ${row.family} on Bedrock; using ${fallback}`),
  );
  return fallback;
}

/** Move checkpoints past the model's cacheable-prefix cap back under it (Nova caches at most 20K tokens). */
function applyPrefixCap(
  checkpoints: PlannedBreakpoint[],
  slots: readonly BreakpointSlot[],
  row: BedrockModelRow,
  warnings: AdapterWarning[],
): PlannedBreakpoint[] {
  const cap = row.maxCachedPrefixTokens;
  if (cap === null) return checkpoints;
  const cumulative: number[] = [];
  slots.reduce((sum, slot) => {
    cumulative.push(sum + slot.tokens);
    return sum + slot.tokens;
  }, 0);
  const used = new Set<number>();
  const result: PlannedBreakpoint[] = [];
  for (const checkpoint of checkpoints) {
    if (checkpoint.estimatedPrefixTokens <= cap) {
      if (!used.has(checkpoint.position)) result.push(checkpoint);
      used.add(checkpoint.position);
      continue;
    }
    let position = checkpoint.position;
    while (
      position >= 0 &&
      ((cumulative[position] ?? 0) > cap || !slots[position]?.cacheable || slots[position]?.zone === 'tail')
    ) {
      position--;
    }
    const slot = slots[position];
    if (!slot || used.has(position) || (cumulative[position] ?? 0) < row.minimumTokensPerCheckpoint) {
      warnings.push(
        adapterWarning(
          'checkpoint-dropped',
          `${checkpoint.path}: checkpoint dropped, its prefix (~${checkpoint.estimatedPrefixTokens} tokens) is past the ${cap}-token cap of ${row.family} and no earlier block can take it`,
          checkpoint.path,
        ),
      );
      continue;
    }
    warnings.push(
      adapterWarning(
        'checkpoint-moved',
        `${checkpoint.path}: checkpoint moved to ${slot.path}, ${row.family} caches at most ${cap} tokens of prefix`,
        checkpoint.path,
      ),
    );
    used.add(position);
    result.push({
      ...checkpoint,
      path: slot.path,
      zone: slot.zone,
      position,
      estimatedPrefixTokens: cumulative[position] ?? 0,
      belowFloor: false,
    });
  }
  return result.sort((left, right) => left.position - right.position);
}

/**
 * The `cachePoint` block for a checkpoint. 5m is the default: leaving `ttl` out keeps bodies in
 * the common shape (and valid for models that accept no TTL field).
 *
 * @example
 * bedrockCachePoint('1h'); // { cachePoint: { type: 'default', ttl: '1h' } }
 */
export function bedrockCachePoint(ttl: BedrockTtl): { cachePoint: CachePointBlock } {
  return ttl === '1h' ? { cachePoint: { type: 'default', ttl: '1h' } } : { cachePoint: { type: 'default' } };
}
