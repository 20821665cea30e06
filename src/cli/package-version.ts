import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The `version` of Cachet's package.json. This file sits at `src/cli/` (or `dist/cli/` once
 * built), two levels below the package root, where package.json always ships.
 */
export function packageVersion(): string {
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json');
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const version = typeof parsed === 'object' && parsed !== null ? (parsed as { version?: unknown }).version : undefined;
  return typeof version === 'string' ? version : 'unknown';
}
