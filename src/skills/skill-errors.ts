import { CachetError } from '../model/errors.js';

/** A SKILL.md that does not follow the format; names the file and the 1-based line. */
export class SkillFormatError extends CachetError {
  readonly file: string;
  readonly line: number;
  constructor(file: string, line: number, detail: string) {
    super('skill_format', `${file}:${line}: ${detail}`);
    this.file = file;
    this.line = line;
  }
}

/** A skill path that leaves its configured root (through `..` or a symbolic link). */
export class SkillPathError extends CachetError {
  readonly root: string;
  readonly path: string;
  constructor(root: string, path: string, detail: string) {
    super('skill_path_escape', `${path}: refused, ${detail} (skill root ${root})`);
    this.root = root;
    this.path = path;
  }
}

/** Two skill files that declare the same name where names must be unique. */
export class DuplicateSkillError extends CachetError {
  constructor(name: string, firstFile: string, secondFile: string) {
    super('skill_duplicate', `skill "${name}" is declared twice: ${firstFile} and ${secondFile}`);
  }
}

/** A SKILL.md that cannot be loaded as a file: not a regular file (a FIFO, a device) or too large. */
export class SkillFileError extends CachetError {
  readonly file: string;
  constructor(file: string, detail: string) {
    super('skill_file', `${file}: ${detail}`);
    this.file = file;
  }
}
