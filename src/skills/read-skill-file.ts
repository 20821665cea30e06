import type { Stats } from 'node:fs';
import { type FileHandle, lstat, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { FileReadError, readRegularFile } from '../model/read-regular-file.js';
import { SkillFileError, SkillPathError } from './skill-errors.js';

/** 1 MiB: about 250,000 tokens, far above any useful skill body. */
export const DEFAULT_MAX_SKILL_FILE_BYTES = 1024 * 1024;

/**
 * How the opened descriptor is matched with the root. `descriptor-path` asks the kernel which
 * file the descriptor holds (`/proc/self/fd`, Linux); `compare-identity` resolves the name with
 * `realpath` and compares device and inode with the descriptor's `fstat` (portable, but a
 * directory of the path swapped for a link between `realpath` and `lstat` is not caught).
 * `auto` uses the first where `/proc` is mounted and the second elsewhere.
 */
export type RootCheck = 'auto' | 'descriptor-path' | 'compare-identity';

export interface ReadSkillFileOptions {
  maxBytes: number;
  rootCheck?: RootCheck;
}

/**
 * Read `file` only if the file actually opened lies inside `rootPath`. The check runs on the
 * open descriptor, which is then read, so a symbolic link swapped in after a path check (the
 * realpath-then-open race) is refused instead of followed.
 */
export async function readSkillFileInsideRoot(rootPath: string, file: string, options: ReadSkillFileOptions): Promise<string> {
  let rootReal: string;
  try {
    rootReal = await realpath(rootPath);
  } catch {
    throw new SkillPathError(rootPath, file, 'the skill root does not exist');
  }
  try {
    return await readRegularFile(file, {
      maxBytes: options.maxBytes,
      verify: (handle, stats) => assertOpenedInsideRoot(rootPath, rootReal, file, handle, stats, options.rootCheck ?? 'auto'),
    });
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    if (error.problem === 'not_found') throw new SkillPathError(rootPath, file, 'no SKILL.md there');
    throw new SkillFileError(file, error.detail);
  }
}

async function assertOpenedInsideRoot(
  rootPath: string,
  rootReal: string,
  file: string,
  handle: FileHandle,
  opened: Stats,
  check: RootCheck,
): Promise<void> {
  if (check !== 'compare-identity') {
    const kernelPath = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (kernelPath !== null && isAbsolute(kernelPath)) {
      if (!isInside(rootReal, kernelPath)) {
        throw new SkillPathError(rootPath, file, `it resolves to ${kernelPath}, outside the skill root (symbolic link)`);
      }
      return;
    }
    if (check === 'descriptor-path') {
      throw new SkillPathError(rootPath, file, 'cannot tell which file was opened (/proc/self/fd is not available)');
    }
  }
  let named: string;
  try {
    named = await realpath(file);
  } catch {
    throw new SkillPathError(rootPath, file, 'it changed while being opened');
  }
  if (!isInside(rootReal, named)) {
    throw new SkillPathError(rootPath, file, `it resolves to ${named}, outside the skill root (symbolic link)`);
  }
  // lstat: a link swapped in after realpath must not be followed to the file we opened.
  const namedStats = await lstat(named).catch(() => null);
  if (!namedStats || namedStats.dev !== opened.dev || namedStats.ino !== opened.ino) {
    throw new SkillPathError(
      rootPath,
      file,
      'the file opened is not the one inside the skill root (it was swapped while opening)',
    );
  }
}

function isInside(rootReal: string, candidate: string): boolean {
  const inside = relative(rootReal, candidate);
  return !(inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside));
}
