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

export function parseProvider(value: string): ProviderId {
  if (!(PROVIDER_NAMES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${PROVIDER_NAMES.join(', ')}`);
  }
  return value as ProviderId;
}

export function parseStrategy(value: string): StrategyName {
  if (!(STRATEGY_NAMES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${STRATEGY_NAMES.join(', ')}`);
  }
  return value as StrategyName;
}
