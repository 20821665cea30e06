import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import type { BreakpointWarning } from '../shared/breakpoint-budget.js';
import { type BedrockCacheField, type BedrockModelRow, resolveBedrockModel } from './models.js';

type MaybeCachePoint = { cachePoint?: { type?: string; ttl?: string } };

/**
 * Check the `cachePoint` blocks of a finished Converse body against the model's documented
 * limits, however they got there: at most the model's checkpoint count, only in fields the
 * model accepts, never first in a list or twice in a row (a checkpoint closes the block before
 * it), TTLs the model offers, and TTLs that never increase from tools to system to messages.
 * Returns warnings instead of throwing; an empty list means Bedrock accepts the checkpoints.
 *
 * @example
 * const problems = validateBedrockCheckpoints(body);
 */
export function validateBedrockCheckpoints(
  body: ConverseCommandInput,
  row: BedrockModelRow = resolveBedrockModel(body.modelId ?? ''),
): BreakpointWarning[] {
  const warnings: BreakpointWarning[] = [];
  const found: Array<{ path: string; ttl: string }> = [];
  const visit = (list: readonly MaybeCachePoint[] | undefined, field: BedrockCacheField, prefix: string) => {
    (list ?? []).forEach((item, index) => {
      if (!item.cachePoint) return;
      const path = `${prefix}[${index}]`;
      const ttl = item.cachePoint.ttl ?? '5m';
      found.push({ path, ttl });
      if (!row.cacheFields.includes(field)) {
        warnings.push({
          code: 'not-cacheable',
          path,
          message: `${path}: ${row.family} does not accept cache checkpoints in ${field}`,
        });
      }
      if (index === 0 || list?.[index - 1]?.cachePoint) {
        warnings.push({ code: 'not-cacheable', path, message: `${path}: a cachePoint must follow a content block` });
      }
      if (!(row.ttlOptions as readonly string[]).includes(ttl)) {
        warnings.push({ code: 'ttl-order', path, message: `${path}: ttl ${ttl} is not offered for ${row.family}` });
      }
    });
  };
  visit(body.toolConfig?.tools as MaybeCachePoint[] | undefined, 'tools', 'toolConfig.tools');
  visit(body.system as MaybeCachePoint[] | undefined, 'system', 'system');
  (body.messages ?? []).forEach((message, index) => {
    visit(message.content as MaybeCachePoint[] | undefined, 'messages', `messages[${index}].content`);
  });
  if (found.length > row.maxCheckpoints) {
    warnings.push({
      code: 'too-many-breakpoints',
      path: found.map((entry) => entry.path).join(', '),
      message: `${found.length} cache checkpoints; ${row.family} accepts at most ${row.maxCheckpoints}`,
    });
  }
  let seenShort: string | null = null;
  for (const entry of found) {
    if (entry.ttl !== '1h') seenShort ??= entry.path;
    else if (seenShort !== null) {
      warnings.push({
        code: 'ttl-order',
        path: entry.path,
        message: `${entry.path}: a 1h checkpoint after the 5m checkpoint at ${seenShort}; TTLs must not increase from tools to system to messages`,
      });
    }
  }
  return warnings;
}
