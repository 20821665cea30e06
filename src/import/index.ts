export { claudeCodeImporter } from './claude-code.js';
export { codexImporter } from './codex.js';
export { findLogFiles, ImportInputError } from './find-log-files.js';
export { importerOf, isHarnessId } from './harnesses.js';
export type {
  HarnessId,
  HarnessImporter,
  LoggedCompaction,
  LoggedEntry,
  LoggedRequest,
  LoggedSession,
  LogRecord,
  SkipTally,
} from './log-record.js';
export { HARNESS_IDS } from './log-record.js';
export { opencodeImporter } from './opencode.js';
export { piImporter } from './pi.js';
export type { ImportedBreak, ImportOptions, ImportSink, ImportSummary } from './run-import.js';
export { importLogs, importPeers, storeSink } from './run-import.js';
