import type { Command } from 'commander';
import { type ModelCatalogRow, modelCatalog, STALE_AFTER_DAYS } from '../../cache/model-catalog.js';
import type { ProviderId } from '../../providers/registry.js';
import { type CliOutput, MODELS_FILE_OPTION, parseProvider, processOutput } from '../cli-options.js';
import { formatTable } from '../format-table.js';

interface ModelsOptions {
  provider?: ProviderId;
  json?: boolean;
}

/**
 * `cachet models [--provider P] [--json]`: every model row Cachet knows — floor, TTL options,
 * prices and cache multipliers, cache-key parameters, source and checked date — with rows older
 * than 180 days flagged stale.
 *
 * @example
 * cachet models --provider anthropic
 */
export function registerModelsCommand(program: Command, output: CliOutput = processOutput): Command {
  return program
    .command('models')
    .description('list every model row: floor, TTLs, prices, read/write multipliers, cache-key parameters, source')
    .option('--provider <provider>', 'only this provider’s rows', parseProvider)
    .option('--json', 'print the rows as JSON')
    .option(MODELS_FILE_OPTION.flags, MODELS_FILE_OPTION.description)
    .action((options: ModelsOptions) => {
      process.exitCode = runModels(options, output);
    });
}

function multiple(value: number): string {
  return `${Number(value.toFixed(3))}×`;
}

function tableRow(row: ModelCatalogRow): string[] {
  return [
    `${row.model}${row.stale ? ' (stale)' : ''}`,
    row.provider,
    row.floorTokens > 0 ? String(row.floorTokens) : '—',
    row.ttlOptions.join(' ') || '—',
    `$${row.inputPerMTok} / $${row.outputPerMTok}`,
    multiple(row.multipliers.read),
    `${multiple(row.multipliers.write5m)} ${multiple(row.multipliers.write1h)}`,
    row.longPromptThresholdTokens === null ? '—' : `>${row.longPromptThresholdTokens / 1000}k`,
    row.cacheKeyParams?.join(' ') ?? '—',
    row.checked,
    row.priceSource,
  ];
}

export function runModels(options: ModelsOptions, output: CliOutput = processOutput, today = new Date()): number {
  const rows = modelCatalog({ ...(options.provider ? { provider: options.provider } : {}), today });
  if (options.json) {
    output.out(JSON.stringify(rows, null, 2));
    return 0;
  }
  const header = [
    'model',
    'provider',
    'floor',
    'TTLs',
    'in / out $/MTok',
    'read',
    'write 5m 1h',
    'long band',
    'cache key',
    'checked',
    'from',
  ];
  output.out(formatTable(header, rows.map(tableRow)));
  const stale = rows.filter((row) => row.stale).length;
  const fromFile = rows.filter((row) => row.priceSource === 'models-file').length;
  output.out(
    `\n${rows.length - fromFile} rows from Cachet's tables${fromFile ? `, ${fromFile} from the models file` : ''}${stale ? `; ${stale} checked more than ${STALE_AFTER_DAYS} days ago (stale)` : ''}. Models not listed are priced from @pydantic/genai-prices when it knows them (priceSource "genai-prices" in --json reports). Sources: --json.`,
  );
  return 0;
}
