import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A command's output collected in arrays: pass `output` to a `run…` function, read `out` and `err`. */
export function captureOutput() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, output: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
}

/** A fresh temporary directory and `file` writing into it (a string as is, anything else as JSON), returning the path. */
export function temporaryFiles(prefix: string): { directory: string; file: (name: string, content: unknown) => string } {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  const file = (name: string, content: unknown): string => {
    const path = join(directory, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  return { directory, file };
}
