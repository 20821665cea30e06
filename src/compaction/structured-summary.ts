import { z } from 'zod';

/** The eleven fields of a compaction summary. */
export interface StructuredSummary {
  userGoal: string;
  activeTasks: string[];
  completedWork: string[];
  decisions: string[];
  errorsAndResolutions: string[];
  filesAndResources: string[];
  keyFacts: string[];
  constraintsAndPreferences: string[];
  openQuestions: string[];
  nextSteps: string[];
  sessionNotes: string[];
}

export const SUMMARY_FIELDS: ReadonlyArray<{ key: keyof StructuredSummary; title: string }> = [
  { key: 'userGoal', title: 'User goal' },
  { key: 'activeTasks', title: 'Active tasks' },
  { key: 'completedWork', title: 'Completed work' },
  { key: 'decisions', title: 'Decisions' },
  { key: 'errorsAndResolutions', title: 'Errors and resolutions' },
  { key: 'filesAndResources', title: 'Files and resources touched' },
  { key: 'keyFacts', title: 'Key facts and data' },
  { key: 'constraintsAndPreferences', title: 'Constraints and preferences' },
  { key: 'openQuestions', title: 'Open questions' },
  { key: 'nextSteps', title: 'Next steps' },
  { key: 'sessionNotes', title: 'Session notes' },
];

const list = z.array(z.string()).default([]);
/** What an LLM summariser must return (parsed strictly; unknown keys are ignored). */
export const structuredSummarySchema = z.object({
  userGoal: z.string().default(''),
  activeTasks: list,
  completedWork: list,
  decisions: list,
  errorsAndResolutions: list,
  filesAndResources: list,
  keyFacts: list,
  constraintsAndPreferences: list,
  openQuestions: list,
  nextSteps: list,
  sessionNotes: list,
});

export function emptySummary(): StructuredSummary {
  return {
    userGoal: '',
    activeTasks: [],
    completedWork: [],
    decisions: [],
    errorsAndResolutions: [],
    filesAndResources: [],
    keyFacts: [],
    constraintsAndPreferences: [],
    openQuestions: [],
    nextSteps: [],
    sessionNotes: [],
  };
}

/** Verbatim content carried through every summary, whatever the summariser wrote. */
export interface CriticalCarry {
  userInstructions: string[];
  activeErrors: string[];
}

/** The summary as the text of the `[CONTEXT]` message: eleven numbered fields, then critical content verbatim. */
export function renderSummary(summary: StructuredSummary, critical: CriticalCarry, header: string, provenance: string): string {
  const lines = [header, provenance, ''];
  SUMMARY_FIELDS.forEach(({ key, title }, index) => {
    lines.push(`## ${index + 1}. ${title}`);
    const value = summary[key];
    const items = typeof value === 'string' ? (value ? [value] : []) : value;
    if (items.length === 0) lines.push('- (none)');
    for (const item of items) lines.push(`- ${item}`);
    lines.push('');
  });
  lines.push('## User instructions so far (verbatim, oldest first)');
  if (critical.userInstructions.length === 0) lines.push('- (none)');
  for (const [index, text] of critical.userInstructions.entries())
    lines.push(`<instruction n="${index + 1}">\n${text}\n</instruction>`);
  lines.push('');
  lines.push('## Active errors (verbatim)');
  if (critical.activeErrors.length === 0) lines.push('- (none)');
  for (const text of critical.activeErrors) lines.push(`<error>\n${text}\n</error>`);
  return lines.join('\n');
}
