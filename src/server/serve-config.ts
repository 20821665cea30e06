import { CachetError } from '../model/errors.js';

/** The port `cachet serve` listens on by default. */
export const DEFAULT_SERVE_PORT = 4319;

/** The server was asked to listen somewhere unsafe or could not listen. */
export class ServeConfigError extends CachetError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('serve_config', message, options);
  }
}
