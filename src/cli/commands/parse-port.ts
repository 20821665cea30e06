import { InvalidArgumentError } from 'commander';

/** A TCP port from 0 (any free one) to 65535. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new InvalidArgumentError('expected a port number from 0 to 65535');
  return port;
}

/** A positive whole number (bytes, milliseconds). */
export function parsePositiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1 || !Number.isSafeInteger(number)) {
    throw new InvalidArgumentError('expected a positive whole number');
  }
  return number;
}

/** A whole number from 0 (a count, such as rows to list). */
export function parseCount(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) {
    throw new InvalidArgumentError(`expected a whole number from 0, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** A budget in USD: a finite number ≥ 0 (`--keep-warm=0.50`). */
export function parseBudgetUsd(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) {
    throw new InvalidArgumentError(`expected a budget in USD ≥ 0, got ${JSON.stringify(value)}`);
  }
  return number;
}
