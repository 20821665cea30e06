/**
 * The live probe behind `npm run probe:anthropic` / `npm run probe:openai`: measures a model's
 * effective floor (bisection on prefix length), whether a 1-hour TTL is honoured, and what
 * share of a repeated prefix is billed as a read, and prints a row in the `--models-file`
 * format. The network lives in the scripts (`scripts/probe-*.ts`); this module takes a `send`
 * function, so its logic is tested without a key or a network.
 */
import type { ProviderId } from '../providers/registry.js';

/** What one probe request reports (from the provider's `usage`). */
export interface ProbeUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Tokens written with a 1-hour lifetime (Anthropic `cache_creation.ephemeral_1h_input_tokens`). */
  cacheWrite1hTokens: number;
  /** Billed cost in USD when the usage carries one (OpenRouter `usage.cost`), else null. */
  costUsd: number | null;
}

/**
 * Sends one request whose cacheable prefix is about `prefixTokens` long; `nonce` makes the
 * prefix unique (a fresh cache entry per trial); `ttl` asks for a lifetime where the provider has one.
 */
export type ProbeSend = (request: {
  prefixTokens: number;
  nonce: string;
  ttl?: '5m' | '1h';
  /** false: send without cache markers (a reference billed at the plain input price). */
  cache?: boolean;
}) => Promise<ProbeUsage>;

export interface ProbeResult {
  provider: ProviderId;
  model: string;
  /** Smallest prefix (to `resolution` tokens) whose repeat was read from cache; null when none up to `maxTokens` was. */
  floorTokens: number | null;
  /** Whether a `1h` write was billed as a 1-hour write; null when not asked. */
  oneHourHonoured: boolean | null;
  /** Share of the repeated prefix's input billed as a cache read (1 = all of it). */
  readShare: number;
  /** Read price over input price from billed costs, when the usage carries costs; else null. */
  readMultiplier: number | null;
  requests: number;
}

export interface ProbeOptions {
  provider: ProviderId;
  model: string;
  send: ProbeSend;
  /** Search range for the floor, in prefix tokens. */
  minTokens?: number;
  maxTokens?: number;
  /** Bisection stops when the range is this narrow. */
  resolution?: number;
  /** Ask for a 1-hour write and check the usage split (Anthropic). */
  checkOneHour?: boolean;
}

/** Whether a prefix of `tokens` is cached: write it, send it again, look for a read. */
async function cachedAt(send: ProbeSend, tokens: number, nonce: string): Promise<{ cached: boolean; repeat: ProbeUsage }> {
  await send({ prefixTokens: tokens, nonce });
  const repeat = await send({ prefixTokens: tokens, nonce });
  return { cached: repeat.cacheReadTokens > 0, repeat };
}

/**
 * Bisection on prefix length: the smallest prefix (within `resolution`) whose repeat reads
 * from cache, assuming caching is monotone in length (a longer prefix of a cached length is
 * cached too).
 *
 * @example
 * await findFloor(send, { minTokens: 256, maxTokens: 8192, resolution: 64 }); // { floorTokens: 1024, requests: 14 }
 */
export async function findFloor(
  send: ProbeSend,
  range: { minTokens: number; maxTokens: number; resolution: number },
  nonce: () => string = counterNonce(),
): Promise<{ floorTokens: number | null; requests: number; repeatAtFloor: ProbeUsage | null }> {
  let requests = 0;
  const trial = async (tokens: number) => {
    requests += 2;
    return cachedAt(send, tokens, nonce());
  };
  const top = await trial(range.maxTokens);
  if (!top.cached) return { floorTokens: null, requests, repeatAtFloor: null };
  const bottom = await trial(range.minTokens);
  if (bottom.cached) return { floorTokens: range.minTokens, requests, repeatAtFloor: bottom.repeat };
  let low = range.minTokens;
  let high = range.maxTokens;
  let atHigh = top.repeat;
  while (high - low > range.resolution) {
    const middle = Math.round((low + high) / 2);
    const result = await trial(middle);
    if (result.cached) {
      high = middle;
      atHigh = result.repeat;
    } else {
      low = middle;
    }
  }
  return { floorTokens: high, requests, repeatAtFloor: atHigh };
}

function counterNonce(): () => string {
  let next = 0;
  const run = Date.now().toString(36);
  return () => `${run}-${(next++).toString(36)}`;
}

/**
 * The whole probe: floor, the 1-hour TTL where asked, and the read share and multiplier of a
 * repeated prefix above the floor.
 */
export async function probeModel(options: ProbeOptions): Promise<ProbeResult> {
  const range = {
    minTokens: options.minTokens ?? 256,
    maxTokens: options.maxTokens ?? 8192,
    resolution: options.resolution ?? 64,
  };
  const nonce = counterNonce();
  const floor = await findFloor(options.send, range, nonce);
  let requests = floor.requests;
  let oneHourHonoured: boolean | null = null;
  if (options.checkOneHour && floor.floorTokens !== null) {
    const write = await options.send({ prefixTokens: floor.floorTokens * 2, nonce: nonce(), ttl: '1h' });
    requests += 1;
    oneHourHonoured = write.cacheWrite1hTokens > 0;
  }
  const repeat = floor.repeatAtFloor;
  const readShare = repeat && repeat.inputTokens > 0 ? repeat.cacheReadTokens / repeat.inputTokens : 0;
  return {
    provider: options.provider,
    model: options.model,
    floorTokens: floor.floorTokens,
    oneHourHonoured,
    readShare,
    readMultiplier: await readMultiplierOf(options, floor.floorTokens, nonce, () => {
      requests += 3;
    }),
    requests,
  };
}

/** Read over input price from two billed requests of the same prefix (cold, then warm), when costs are reported. */
async function readMultiplierOf(
  options: ProbeOptions,
  floorTokens: number | null,
  nonce: () => string,
  count: () => void,
): Promise<number | null> {
  if (floorTokens === null) return null;
  const tokens = floorTokens * 2;
  // A fresh prefix without markers is billed at the plain input price: the reference rate.
  const plain = await options.send({ prefixTokens: tokens, nonce: nonce(), cache: false });
  const id = nonce();
  await options.send({ prefixTokens: tokens, nonce: id });
  const warm = await options.send({ prefixTokens: tokens, nonce: id });
  count();
  if (plain.costUsd === null || warm.costUsd === null || warm.cacheReadTokens === 0 || plain.cacheReadTokens > 0) return null;
  const perToken = plain.costUsd / plain.inputTokens;
  if (perToken <= 0) return null;
  const readCost = warm.costUsd - (warm.inputTokens - warm.cacheReadTokens) * perToken;
  return Math.max(0, readCost / (perToken * warm.cacheReadTokens));
}

/**
 * The probe's findings as one `--models-file` row (YAML flow mapping): the floor, the TTLs
 * seen honoured, the read multiplier when measured, the source and today's date.
 *
 * @example
 * modelsFileRow(result, '2026-11-27'); // '- {provider: anthropic, model: claude-sonnet-5-5, floorTokens: 1024, ...}'
 */
export function modelsFileRow(result: ProbeResult, checked: string): string {
  const fields: string[] = [`provider: ${result.provider}`, `model: ${result.model}`];
  if (result.floorTokens !== null) fields.push(`floorTokens: ${result.floorTokens}`);
  if (result.oneHourHonoured !== null) fields.push(`ttlOptions: [${result.oneHourHonoured ? '5m, 1h' : '5m'}]`);
  if (result.readMultiplier !== null) fields.push(`readMultiplier: ${Number(result.readMultiplier.toFixed(4))}`);
  const read = `read share ${(result.readShare * 100).toFixed(0)}%`;
  fields.push(`source: "npm run probe:${result.provider} (${result.requests} requests; ${read})"`, `checked: ${checked}`);
  return `- {${fields.join(', ')}}`;
}

/** What the probe scripts print without a key: how to run them. Exit code 0. */
export function probeUsage(script: string, keyVariable: string, defaultModel: string): string {
  return [
    `${script}: no ${keyVariable} in the environment, nothing measured.`,
    `Run: ${keyVariable}=... npm run ${script} -- [model] (default ${defaultModel})`,
    'It sends about 20-40 small requests to find the effective floor by bisection, checks the 1-hour TTL',
    'where the provider has one and the share of a repeated prefix billed as a read, and prints a',
    '--models-file row (docs/providers.md, "Models file"). Never part of npm test.',
  ].join('\n');
}
