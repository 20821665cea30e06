import { CachetError } from '../model/errors.js';

export type OffloadStoreErrorCode =
  /** The store's directory (or a parent) exists but is not a directory. */
  | 'offload_directory_invalid'
  | 'offload_write_failed'
  | 'offload_read_failed'
  /** A record's file is truncated, is not a record, or its content does not match its hash. */
  | 'offload_corrupt';

/** A file-backed store could not keep or give back a record; `path` names the file or directory. */
export class OffloadStoreError extends CachetError {
  readonly path: string;

  constructor(code: OffloadStoreErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'OffloadStoreError';
    this.path = path;
  }
}
