import { CachetError } from '../model/errors.js';

/** Options that cannot work together, or ask for something that does not exist; exit code 1. */
export class CliUsageError extends CachetError {
  constructor(message: string) {
    super('cli_usage', message);
  }
}
