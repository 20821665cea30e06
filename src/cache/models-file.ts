/**
 * A models file: rows that override or add models without upgrading Cachet (`--models-file FILE`
 * on the CLI, `parseModelsFile` / `loadModelsFile` plus the `models` option in the library).
 * JSON or YAML, either a list of rows or `{ models: [rows] }`. Each row names a provider and a
 * model id and sets any of: the floor, TTL options, cache-key parameters, prices (per million
 * tokens, or the cache prices as multipliers of the input rate), a long-prompt band, its source
 * and the date it was checked. A bad row is a `ModelsFileError` naming the file, the row (index
 * and id) and the field.
 *
 * @example
 * # models.yaml
 * - provider: anthropic
 *   model: claude-sonnet-5-5
 *   inputPerMTok: 2
 *   outputPerMTok: 10
 *   readMultiplier: 0.05
 *   floorTokens: 1024
 *   source: my measurement (npm run probe:anthropic)
 *   checked: 2026-11-27
 */
import { isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CachetError } from '../model/errors.js';
import { FileReadError, readRegularFile } from '../model/read-regular-file.js';
import { joinPath } from '../model/validate.js';
import { isProviderId, PROVIDER_IDS, type ProviderId, providerEntry } from '../providers/registry.js';
import { cacheMultipliersOf, type PriceRates, type PriceRow } from '../providers/shared/price-row.js';
import { installUserModelRows, type UserModelRow } from '../providers/shared/user-model-rows.js';
import { findOwnPrice, findPrice } from './pricing.js';

export type { UserModelRow } from '../providers/shared/user-model-rows.js';

/** A models file that cannot be used: the file, the row (index and model id) and the field. */
export class ModelsFileError extends CachetError {
  readonly file: string;
  /** Index of the row in the file's list (null for a problem with the file as a whole). */
  readonly row: number | null;
  readonly model: string | null;
  /** The field inside the row (`inputPerMTok`, `longPrompt.thresholdTokens`); empty for the row itself. */
  readonly field: string;
  readonly problem: string;
  constructor(file: string, row: number | null, model: string | null, field: string, problem: string) {
    const where = row === null ? '' : ` row ${row}${model ? ` (${model})` : ''}`;
    super('invalid_models_file', `${file}:${where}: ${field || '(row)'}: ${problem}`);
    this.file = file;
    this.row = row;
    this.model = model;
    this.field = field;
    this.problem = problem;
  }
}

export interface ModelsFile {
  file: string;
  rows: UserModelRow[];
}

/** Largest models file accepted. */
const MAX_MODELS_FILE_BYTES = 4 * 1024 * 1024;
/** Providers whose floor Cachet plans against (the others have none to override). */
const FLOOR_PROVIDERS: readonly ProviderId[] = ['anthropic', 'bedrock', 'openai-chat', 'openai-responses', 'gemini'];
/** Providers with a choice of cache TTL (`5m` / `1h`). */
const TTL_PROVIDERS: readonly ProviderId[] = ['anthropic', 'bedrock'];
/** Providers whose rows carry cache-key parameters (Bedrock and OpenRouter Claude routes read Anthropic's). */
const CACHE_KEY_PARAM_PROVIDERS: readonly ProviderId[] = ['anthropic'];

const price = z.number().finite().nonnegative();
const multiplier = z.number().finite().nonnegative();
const BandSchema = z.strictObject({
  thresholdTokens: z.number().int().positive(),
  inputPerMTok: price,
  outputPerMTok: price,
  cacheReadPerMTok: price.optional(),
  cacheWrite5mPerMTok: price.optional(),
  cacheWrite1hPerMTok: price.optional(),
});
const RowSchema = z.strictObject({
  provider: z.string(),
  model: z.string().min(1),
  floorTokens: z.number().int().positive().optional(),
  ttlOptions: z
    .array(z.enum(['5m', '1h']))
    .min(1)
    .optional(),
  cacheKeyParams: z.array(z.string().min(1)).optional(),
  inputPerMTok: price.optional(),
  outputPerMTok: price.optional(),
  cacheReadPerMTok: price.optional(),
  cacheWrite5mPerMTok: price.optional(),
  cacheWrite1hPerMTok: price.optional(),
  readMultiplier: multiplier.optional(),
  write5mMultiplier: multiplier.optional(),
  write1hMultiplier: multiplier.optional(),
  longPrompt: BandSchema.optional(),
  source: z.string().min(1).optional(),
  checked: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
    .optional(),
});
type FileRow = z.infer<typeof RowSchema>;

const PRICE_FIELDS = [
  'inputPerMTok',
  'outputPerMTok',
  'cacheReadPerMTok',
  'cacheWrite5mPerMTok',
  'cacheWrite1hPerMTok',
  'readMultiplier',
  'write5mMultiplier',
  'write1hMultiplier',
  'longPrompt',
] as const;

function describeIssue(issue: z.core.$ZodIssue): { field: string; problem: string } {
  if (issue.code === 'unrecognized_keys') {
    return { field: issue.keys[0] ?? '', problem: `unknown field (known: ${Object.keys(RowSchema.shape).join(', ')})` };
  }
  const field = joinPath('', issue.path);
  if (issue.code === 'too_small' && issue.origin === 'number') {
    const floor = /floorTokens|thresholdTokens/.test(field);
    return { field, problem: floor ? 'must be a whole number of tokens, at least 1' : 'must not be negative' };
  }
  return { field, problem: issue.message };
}

/** The rows of a parsed file: a list, or `{ models: [...] }`. */
function rowsOf(data: unknown, file: string): unknown[] {
  if (Array.isArray(data)) return data;
  if (typeof data === 'object' && data !== null && Array.isArray((data as { models?: unknown }).models)) {
    const extra = Object.keys(data).filter((key) => key !== 'models');
    if (extra.length > 0) throw new ModelsFileError(file, null, null, extra[0]!, 'unknown top-level field (only `models`)');
    return (data as { models: unknown[] }).models;
  }
  throw new ModelsFileError(file, null, null, '', 'expected a list of model rows, or { models: [rows] }');
}

/** Cachet's own price row for the model, ignoring any models file in force. */
function builtInPrice(provider: ProviderId, model: string): PriceRow | null {
  const restore = installUserModelRows([]);
  try {
    return findOwnPrice(provider, model);
  } finally {
    restore();
  }
}

type Fail = (field: string, problem: string) => never;

/** The cache rates of one band: stated prices, else multipliers, else the built-in row's multipliers. */
function bandRates(
  row: Partial<PriceRates> & Pick<FileRow, 'readMultiplier' | 'write5mMultiplier' | 'write1hMultiplier'>,
  input: number,
  output: number,
  defaults: { write5m: number; write1h: number; read: number | null },
  fail: Fail,
  prefix: string,
): PriceRates {
  const read =
    row.cacheReadPerMTok ?? (row.readMultiplier ?? defaults.read ?? fail(`${prefix}cacheReadPerMTok`, NO_READ)) * input;
  return {
    inputPerMTok: input,
    outputPerMTok: output,
    cacheReadPerMTok: read,
    cacheWrite5mPerMTok: row.cacheWrite5mPerMTok ?? (row.write5mMultiplier ?? defaults.write5m) * input,
    cacheWrite1hPerMTok: row.cacheWrite1hPerMTok ?? (row.write1hMultiplier ?? defaults.write1h) * input,
  };
}

const NO_READ =
  'required for a model Cachet has no price row for (or give readMultiplier): there is no built-in read rate to keep';

function priceOf(row: FileRow, provider: ProviderId, fail: Fail, source: string, checked: string): PriceRow | undefined {
  const route = providerEntry(provider).route(row.model);
  if (!PRICE_FIELDS.some((field) => row[field] !== undefined)) {
    // A row without prices keeps the model's own; a model nobody prices needs them here.
    if (route.priceVendor !== null && !findPrice(provider, row.model)) {
      fail('inputPerMTok', 'required: Cachet has no price for this model (built-in or @pydantic/genai-prices)');
    }
    return undefined;
  }
  if (route.priceVendor === null) {
    fail(
      PRICE_FIELDS.find((field) => row[field] !== undefined)!,
      `${provider} does not price ${row.model} (a local engine or an unknown route)`,
    );
  }
  const base = builtInPrice(provider, row.model);
  const input =
    row.inputPerMTok ?? base?.inputPerMTok ?? fail('inputPerMTok', 'required for a model Cachet has no price row for');
  const output =
    row.outputPerMTok ?? base?.outputPerMTok ?? fail('outputPerMTok', 'required for a model Cachet has no price row for');
  // Explicit (marker) caches bill a write premium; automatic ones write at the input rate.
  const standardWrite = route.rules === 'anthropic' ? { write5m: 1.25, write1h: 2 } : { write5m: 1, write1h: 1 };
  const defaults = base && base.inputPerMTok > 0 ? cacheMultipliersOf(base) : { ...standardWrite, read: null };
  const rates = bandRates(row, input, output, defaults, fail, '');
  const band = row.longPrompt;
  const longRates = band
    ? bandRates(band, band.inputPerMTok, band.outputPerMTok, cacheMultipliersOf(rates), fail, 'longPrompt.')
    : null;
  return {
    vendor: route.priceVendor as string,
    model: route.upstreamModel,
    ...rates,
    ...(band && longRates ? { longPrompt: { thresholdTokens: band.thresholdTokens, ...longRates } } : {}),
    priceSource: 'models-file',
    source,
    checked,
  };
}

function checkProviderFields(row: FileRow, provider: ProviderId, fail: Fail): void {
  if (row.floorTokens !== undefined && !FLOOR_PROVIDERS.includes(provider)) {
    fail('floorTokens', `${provider} has no floor Cachet plans against (set it on one of: ${FLOOR_PROVIDERS.join(', ')})`);
  }
  if (row.ttlOptions !== undefined && !TTL_PROVIDERS.includes(provider)) {
    fail('ttlOptions', `${provider} has no TTL choice (only ${TTL_PROVIDERS.join(', ')})`);
  }
  if (row.cacheKeyParams !== undefined && !CACHE_KEY_PARAM_PROVIDERS.includes(provider)) {
    fail('cacheKeyParams', 'only Anthropic rows carry cache-key parameters (Bedrock and OpenRouter Claude routes read them)');
  }
}

function userRow(data: unknown, index: number, file: string): UserModelRow {
  const id =
    typeof data === 'object' && data !== null && typeof (data as { model?: unknown }).model === 'string'
      ? (data as { model: string }).model
      : null;
  const fail: Fail = (field, problem) => {
    throw new ModelsFileError(file, index, id, field, problem);
  };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) fail('', 'expected a mapping of row fields');
  const parsed = RowSchema.safeParse(data);
  if (!parsed.success) {
    const { field, problem } = describeIssue(parsed.error.issues[0]!);
    fail(field, problem);
  }
  const row = (parsed as { data: FileRow }).data;
  if (!isProviderId(row.provider)) fail('provider', `unknown provider "${row.provider}" (one of: ${PROVIDER_IDS.join(', ')})`);
  const provider = row.provider as ProviderId;
  checkProviderFields(row, provider, fail);
  const source = row.source ?? `models file ${file}`;
  const checked = row.checked ?? 'not stated';
  const price = priceOf(row, provider, fail, source, checked);
  return {
    provider,
    model: row.model,
    ...(row.floorTokens === undefined ? {} : { floorTokens: row.floorTokens }),
    ...(row.ttlOptions === undefined ? {} : { ttlOptions: row.ttlOptions }),
    ...(row.cacheKeyParams === undefined ? {} : { cacheKeyParams: row.cacheKeyParams }),
    ...(price ? { price } : {}),
    source,
    checked,
    origin: `${file}#${index}`,
  };
}

/**
 * Validate models-file text (JSON or YAML) into rows for the `models` option or
 * `installUserModelRows`.
 *
 * @example
 * parseModelsFile('- {provider: anthropic, model: claude-sonnet-5-5, floorTokens: 2048}', 'models.yaml').rows[0].floorTokens; // 2048
 */
export function parseModelsFile(text: string, file: string): ModelsFile {
  let data: unknown;
  try {
    data = parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 });
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw new ModelsFileError(file, null, null, '', `not valid YAML or JSON: ${first}`);
  }
  const rows = rowsOf(data, file).map((row, index) => userRow(row, index, file));
  const seen = new Map<string, number>();
  rows.forEach((row, index) => {
    const key = `${row.provider}/${row.model.toLowerCase()}`;
    const first = seen.get(key);
    if (first !== undefined)
      throw new ModelsFileError(file, index, row.model, 'model', `duplicate of row ${first} (same provider and id)`);
    seen.set(key, index);
  });
  return { file, rows };
}

/**
 * Read and validate a models file.
 *
 * @example
 * const { rows } = await loadModelsFile('models.yaml');
 * simulateWorkload(workload, { models: rows });
 */
export async function loadModelsFile(path: string): Promise<ModelsFile> {
  const file = isAbsolute(path) ? path : resolve(path);
  let text: string;
  try {
    text = await readRegularFile(file, { maxBytes: MAX_MODELS_FILE_BYTES });
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    throw new ModelsFileError(file, null, null, '', error.problem === 'not_found' ? 'file not found' : error.detail);
  }
  return parseModelsFile(text, path);
}
