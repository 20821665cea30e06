import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { ValidationError } from '../../model/errors.js';
import { type AnthropicModelRow, resolveAnthropicModel } from '../../providers/anthropic/models.js';
import {
  BEDROCK_CLAUDE_EXCEPTIONS,
  BEDROCK_MODELS,
  type BedrockModelRow,
  resolveBedrockModel,
} from '../../providers/bedrock/models.js';
import { validateBedrockCheckpoints } from '../../providers/bedrock/validate-checkpoints.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { withFormat } from '../wire/body-units.js';
import { converseAsMessages } from '../wire/converse-as-messages.js';
import { isRecord } from '../wire/json-helpers.js';
import type { NormalizedWireBody } from '../wire/wire-unit.js';
import { createAnthropicCacheModel } from './anthropic-cache-model.js';
import { buildVerdict, type CacheModel, type CacheVerdict, type JudgeContext } from './cache-verdict.js';

export interface BedrockCacheModelOptions {
  /** Token counter; the calibrated Anthropic estimator by default. */
  counter?: TokenCounter;
  /** Rows that override the Bedrock tables (checkpoint minimum, fields, TTLs). */
  modelOverrides?: readonly BedrockModelRow[];
}

/**
 * Bedrock's prompt cache for Converse bodies. Claude on Bedrock follows Anthropic's documented
 * rules (prefix order, entries only at checkpoints of earlier requests, 20-block lookback,
 * per-model minimum, 5-minute / 1-hour TTLs refreshed by reads), so the body is rewritten as
 * the Messages body it stands for and judged by the Anthropic model, with the Bedrock rows'
 * minimums. Before that, the checkpoints are checked against the model's documented limits: a
 * body Bedrock would reject (too many checkpoints, a checkpoint in a field the model does not
 * cache, a TTL it does not offer or in the wrong order) reads and writes nothing.
 *
 * Nova is judged by the same rules with its own minimum; whether Nova searches back from a
 * checkpoint as Claude does is not documented (see docs/providers/bedrock.md).
 *
 * @example
 * const model = createBedrockCacheModel();
 * model.judge(converseBody1, { at: 0 });
 * model.judge(converseBody2, { at: 60_000 }).cacheReadTokens;
 */
export function createBedrockCacheModel(options: BedrockCacheModelOptions = {}): CacheModel {
  const overrides = options.modelOverrides ?? [];
  const anthropic = createAnthropicCacheModel({
    ...(options.counter ? { counter: options.counter } : {}),
    modelOverrides: [...BEDROCK_MODELS, ...claudeExceptionRows(), ...overrides].map(asAnthropicRow),
  });
  let index = 0;
  return {
    rules: 'anthropic',
    judge(rawBody: unknown, context: JudgeContext): CacheVerdict {
      if (!isRecord(rawBody) || typeof rawBody.modelId !== 'string') {
        throw new ValidationError('body', 'a Bedrock ConverseCommandInput (with modelId)');
      }
      const row = resolveBedrockModel(rawBody.modelId, overrides);
      const problems = validateBedrockCheckpoints(rawBody as unknown as ConverseCommandInput, row);
      // The Messages body it stands for is what the Anthropic model normalises; a caller is told the Bedrock body's normalisation.
      const told = context.onNormalized;
      // converseAsMessages always makes a Messages body, so the Anthropic model's normalisation is of that body.
      const tellBedrock = (body: NormalizedWireBody) => told?.(withFormat(body, 'bedrock'), 'bedrock');
      // A caller's own normalisation (`normalized`) is the Converse body's, never the Messages body's it stands for.
      const { normalized, ...own } = context;
      const messagesContext = told ? { ...own, onNormalized: tellBedrock } : own;
      const verdict = { ...anthropic.judge(converseAsMessages(rawBody), messagesContext), index: index++ };
      if (problems.length === 0) return verdict;
      const rejected = `Rejected (ValidationException): ${problems.map((problem) => problem.message).join('; ')}`;
      return buildVerdict({
        ...verdict,
        cacheReadTokens: 0,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
        readFrom: null,
        missCause: null,
        explanation: [rejected],
        rejected,
      });
    },
    reset() {
      anthropic.reset();
      index = 0;
    },
  };
}

/** Claude models whose Bedrock minimum is not the Anthropic table's (Claude 3.7 Sonnet is not in it). */
function claudeExceptionRows(): BedrockModelRow[] {
  return BEDROCK_CLAUDE_EXCEPTIONS.filter((exception) => exception.change.minimumTokensPerCheckpoint !== undefined).flatMap(
    (exception) => exception.models.map((id) => ({ ...resolveBedrockModel(`anthropic.${id}`), models: [id] })),
  );
}

/** A Bedrock row as the Anthropic model reads it: its prefixes and its minimum per checkpoint. */
function asAnthropicRow(row: BedrockModelRow): AnthropicModelRow {
  return {
    models: row.models,
    family: row.family,
    documentedFloorTokens: row.minimumTokensPerCheckpoint,
    effectiveFloorTokens: row.minimumTokensPerCheckpoint,
    paddingTarget: { min: row.minimumTokensPerCheckpoint, max: row.minimumTokensPerCheckpoint },
    ttlOptions: row.ttlOptions,
    // Bedrock forwards Claude's request fields unchanged: the Anthropic row says which are in the key.
    cacheKeyParams: resolveAnthropicModel(row.models[0] ?? '').cacheKeyParams,
    source: row.source,
    checked: row.checked,
  };
}
