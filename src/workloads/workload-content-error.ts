import { CachetError } from '../model/errors.js';

/** Thrown by `expandWorkload` for content that parses but does not make sense; the loader adds the file. */
export class WorkloadContentError extends CachetError {
  readonly path: string;
  readonly problem: string;
  constructor(path: string, problem: string) {
    super('invalid_workload', `${path}: ${problem}`);
    this.path = path;
    this.problem = problem;
  }
}
