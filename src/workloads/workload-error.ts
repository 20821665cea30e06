import { CachetError } from '../model/errors.js';

/**
 * A workload file that cannot be used, naming the file, the path inside it (`turns[3].steps[0].toolCalls[1].name`),
 * the line when known, and the problem. The CLI exits with code 2 on this error.
 */
export class WorkloadError extends CachetError {
  readonly file: string;
  readonly path: string;
  readonly problem: string;
  readonly line: number | null;

  constructor(file: string, path: string, problem: string, line: number | null = null) {
    super('invalid_workload', `${file}${line === null ? '' : `:${line}`}: ${path || '(root)'}: ${problem}`);
    this.file = file;
    this.path = path;
    this.problem = problem;
    this.line = line;
  }
}
