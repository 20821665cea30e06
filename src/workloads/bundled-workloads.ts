import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The `workloads/` folder shipped with the package. This file sits at `src/workloads/` (or
 * `dist/workloads/` once built), two levels below the package root.
 */
export function bundledWorkloadsDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'workloads');
}

/** Names of the bundled workloads, in the order the demo runs them (file names sort by number). */
export function bundledWorkloadNames(): string[] {
  return readdirSync(bundledWorkloadsDir())
    .filter((file) => /\.(ya?ml|json)$/.test(file))
    .sort()
    .map((file) => file.replace(/\.(ya?ml|json)$/, '').replace(/^\d+-/, ''));
}

/** Path of a bundled workload by name; accepts the name with or without its numeric prefix. */
export function bundledWorkloadPath(name: string): string {
  const files = readdirSync(bundledWorkloadsDir()).filter((file) => /\.(ya?ml|json)$/.test(file));
  const match = files.find((file) => {
    const base = file.replace(/\.(ya?ml|json)$/, '');
    return base === name || base.replace(/^\d+-/, '') === name;
  });
  return join(bundledWorkloadsDir(), match ?? `${name}.yaml`);
}
