import { InvalidArgumentError } from 'commander';
import type { ProviderId } from '../providers/adapter.js';
import { STRATEGY_NAMES, type StrategyName } from '../simulate/strategy.js';
import { PROVIDER_NAMES } from '../workloads/workload-schema.js';

/** Where commands print: lines to stdout and stderr (tests pass their own). */
export interface CliOutput {
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stderr is a terminal (progress redraws one line instead of printing many). */
  errIsTty: boolean;
}

export const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text),
  errIsTty: Boolean(process.stderr.isTTY),
};

/** A commander option parser accepting only `values` (anything else: "expected one of …"). */
export function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    if (!(values as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${values.join(', ')}`);
    return value as T;
  };
}

export const parseProvider: (value: string) => ProviderId = oneOf(PROVIDER_NAMES);

export const parseStrategy: (value: string) => StrategyName = oneOf(STRATEGY_NAMES);

/** The `--models-file` option every command that prices or plans a model takes. */
export const MODELS_FILE_OPTION = {
  flags: '--models-file <file>',
  description: 'JSON/YAML model rows that override or add models: floor, TTLs, prices (docs/providers.md, "Models file")',
} as const;
