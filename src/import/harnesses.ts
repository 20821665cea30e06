import { claudeCodeImporter } from './claude-code.js';
import { codexImporter } from './codex.js';
import { HARNESS_IDS, type HarnessId, type HarnessImporter } from './log-record.js';
import { opencodeImporter } from './opencode.js';
import { piImporter } from './pi.js';

const IMPORTERS: Readonly<Record<HarnessId, HarnessImporter>> = {
  'claude-code': claudeCodeImporter,
  codex: codexImporter,
  opencode: opencodeImporter,
  pi: piImporter,
};

export function isHarnessId(value: string): value is HarnessId {
  return (HARNESS_IDS as readonly string[]).includes(value);
}

export function importerOf(harness: HarnessId): HarnessImporter {
  return IMPORTERS[harness];
}
