import { type DeepSeekModelRow, deepSeekThinks, resolveDeepSeekModel } from '../../providers/deepseek/models.js';
import { openAiTokenCounter } from '../../tokens/openai-token-counter.js';
import type { TokenCounter } from '../../tokens/token-counter.js';
import { unitTokens } from '../wire/cache-rules.js';
import { normalizeWireBody } from '../wire/normalize-wire-body.js';
import { buildVerdict, type CacheModel, type CacheVerdict, formatAge, formatTokens, type JudgeContext } from './cache-verdict.js';
import { runningTotals, unitPrefixHashes } from './unit-prefix.js';

export interface DeepSeekCacheModelOptions {
  /** Token counter [o200k_base as a stand-in; pass the DeepSeek-V3 tokenizer for exact counts]. */
  counter?: TokenCounter;
  modelOverrides?: readonly DeepSeekModelRow[];
}

interface PersistedUnit {
  /** Prefix hash of the last wire unit the cache unit covers. */
  hash: string;
  /** Wire units it covers, from the start. */
  length: number;
  tokens: number;
  path: string;
  kind: 'end of input' | 'end of output' | 'common prefix';
  writtenAt: number;
  expiresAt: number;
}

interface Judged {
  hashes: string[];
  cumulative: number[];
  roles: Array<string | null>;
  messageIndex: Array<number | null>;
  at: number;
}

/**
 * DeepSeek's context cache as documented (`DEEPSEEK_MODELS`): a request hits only a whole
 * persisted unit, the longest one its prefix contains. After each request the model persists
 * a unit at the end of its input; the end of its output becomes a unit too, recognised when a
 * later request continues the same prefix with the assistant message that followed; and the
 * longest prefix a request shares with the one before it is persisted as a common-prefix
 * unit, readable from the next request on. In thinking mode (`deepseek-reasoner`, V4 models by
 * default) a reply without tool calls leaves no readable end-of-output unit: the reasoning it
 * holds is dropped from later requests. Fixed-interval units are not modelled (their
 * interval is undocumented), so the model errs towards fewer hits on very long inputs.
 * Comparisons are made by wire unit (message part, tool call), not by token.
 *
 * @example
 * const model = createDeepSeekCacheModel();
 * model.judge(chatBody1, { at: 0 });
 * model.judge(chatBody2, { at: 30_000 }).cacheReadTokens;
 */
export function createDeepSeekCacheModel(options: DeepSeekCacheModelOptions = {}): CacheModel {
  const counter = options.counter ?? openAiTokenCounter('o200k_base');
  let units: PersistedUnit[] = [];
  let previous: Judged | null = null;
  let index = 0;

  function judge(rawBody: unknown, context: JudgeContext): CacheVerdict {
    const body = normalizeWireBody(rawBody, 'deepseek');
    context.onNormalized?.(body, 'deepseek');
    const row = resolveDeepSeekModel(body.model, options.modelOverrides);
    const at = context.at;
    const hashes = unitPrefixHashes(body);
    const cumulative = runningTotals(body.units.map((unit) => unitTokens(unit, counter)));
    const current: Judged = {
      hashes,
      cumulative,
      roles: body.units.map((unit) => unit.role),
      messageIndex: body.units.map((unit) => unit.messageIndex),
      at,
    };
    const explanation: string[] = [];
    units = units.filter((unit) => at < unit.expiresAt);

    // End-of-output unit of the previous request: its input followed by the assistant message now sent back.
    if (previous && sharesPrefix(previous, current, previous.hashes.length)) {
      const start = previous.hashes.length;
      const replyMessage = current.messageIndex[start];
      let end = start;
      let calledTools = false;
      while (end < hashes.length && current.roles[end] === 'assistant' && current.messageIndex[end] === replyMessage) {
        calledTools ||= body.units[end]!.kind === 'tool_use';
        end++;
      }
      // In thinking mode a reply without tool calls was generated after its reasoning, which no
      // later request carries: its end-of-output unit is not a prefix of this one.
      const unitHoldsDroppedReasoning = deepSeekThinks(rawBody, options.modelOverrides) && !calledTools;
      if (end > start && unitHoldsDroppedReasoning) {
        explanation.push(
          'The previous reply ended a turn without tool calls in thinking mode: its end-of-output unit holds reasoning this request does not carry, so it cannot be read.',
        );
      } else if (end > start) persist(end, 'end of output', previous.at, body.units[end - 1]!.path);
    }

    let best: PersistedUnit | null = null;
    for (const unit of units) {
      if (unit.length <= hashes.length && hashes[unit.length - 1] === unit.hash && (!best || unit.length > best.length))
        best = unit;
    }
    const cacheReadTokens = best ? best.tokens : 0;
    if (best) {
      best.expiresAt = at + row.lifetimeMs;
      explanation.push(
        `Read ${formatTokens(cacheReadTokens)} tokens: the whole ${best.kind} unit ending at ${best.path}, persisted ${formatAge(at - best.writtenAt)} ago.`,
      );
    } else {
      explanation.push('No persisted unit is a whole prefix of this request: nothing read.');
    }

    // Units this request leaves: its full input now, and the prefix it shares with the previous request.
    if (previous) {
      const shared = commonLength(previous, current);
      if (shared > 0 && shared < hashes.length) {
        persist(shared, 'common prefix', at, body.units[shared - 1]!.path);
        if (!best || best.length < shared) {
          explanation.push(
            `The ${formatTokens(cumulative[shared - 1]!)} tokens shared with the previous request end inside its unit, so they were not read; they are persisted now as a common-prefix unit for later requests.`,
          );
        }
      }
    }
    if (hashes.length > 0) persist(hashes.length, 'end of input', at, body.units.at(-1)!.path);
    previous = current;

    function persist(length: number, kind: PersistedUnit['kind'], writtenAt: number, path: string) {
      const hash = hashes[length - 1]!;
      if (units.some((unit) => unit.hash === hash)) return;
      units.push({ hash, length, tokens: cumulative[length - 1]!, path, kind, writtenAt, expiresAt: at + row.lifetimeMs });
    }

    return buildVerdict({
      index: index++,
      at,
      inputTokens: cumulative.at(-1) ?? 0,
      cacheReadTokens,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      tokensEstimated: !counter.exact,
      counter: counter.name,
      readFrom: best ? { path: best.path, writtenAt: best.writtenAt } : null,
      missCause: null,
      explanation,
      warnings: [...body.warnings],
      rejected: null,
    });
  }

  return {
    rules: 'deepseek',
    judge,
    reset() {
      units = [];
      previous = null;
      index = 0;
    },
  };
}

function sharesPrefix(earlier: Judged, later: Judged, length: number): boolean {
  return length > 0 && length <= later.hashes.length && later.hashes[length - 1] === earlier.hashes[length - 1];
}

function commonLength(earlier: Judged, later: Judged): number {
  let length = 0;
  const limit = Math.min(earlier.hashes.length, later.hashes.length);
  while (length < limit && earlier.hashes[length] === later.hashes[length]) length++;
  return length;
}
