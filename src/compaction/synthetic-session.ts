import type { AssistantMessage, ToolDefinition, ToolResultBlock } from '../model/content.js';
import { mulberry32 } from '../model/mulberry32.js';

/**
 * A generated agent session for tests and benchmarks: coding-agent turns with tool loops,
 * file reads of every size (some far above the ingestion threshold, some read twice), failing
 * and recovering test runs, idle gaps long enough for the cache to expire, and planted content
 * (user instructions, an error that stays active, session notes) to check retention.
 * Deterministic for a seed.
 */
export interface SyntheticStep {
  /** Time of the request that produces this assistant message (ms on the workload clock). */
  at: number;
  assistant: AssistantMessage;
  /** Results of the non-Cachet tool calls, by tool_use id (Cachet's own tools are run by the driver). */
  results: Record<string, ToolResultBlock>;
}

export interface SyntheticTurn {
  at: number;
  userText: string;
  steps: SyntheticStep[];
}

export interface SyntheticSession {
  turns: SyntheticTurn[];
  tools: ToolDefinition[];
  planted: {
    instructions: Array<{ turn: number; text: string }>;
    errors: Array<{ turn: number; text: string }>;
    notes: Array<{ turn: number; text: string }>;
  };
  requestCount: number;
}

export interface SyntheticSessionOptions {
  turns?: number;
  seed?: number;
  /** Scales tool output sizes (1 = a typical coding session, ~1M tokens over 200 turns). */
  outputScale?: number;
  startAt?: number;
}

export const SYNTHETIC_TOOLS: ToolDefinition[] = [
  tool('read_file', 'Read a file of the repository', { path: { type: 'string' } }),
  tool('grep', 'Search the repository', { pattern: { type: 'string' } }),
  tool('run_tests', 'Run the test suite', { filter: { type: 'string' } }),
  tool('deploy_preview', 'Deploy a preview build', { branch: { type: 'string' } }),
];

/** Marker the driver replaces with the newest restore id seen in the session. */
export const LATEST_RESTORE_ID = '$LATEST_RESTORE_ID';

export function generateSyntheticSession(options: SyntheticSessionOptions = {}): SyntheticSession {
  const turnCount = options.turns ?? 200;
  const random = mulberry32(options.seed ?? 7);
  const scale = options.outputScale ?? 1;
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const planted: SyntheticSession['planted'] = { instructions: [], errors: [], notes: [] };
  const instructionAt = new Map([
    [3, 'PLANTED-INSTRUCTION-1: never modify files under vendor/ and always run the linter before committing.'],
    [61, 'PLANTED-INSTRUCTION-2: answer in British English and keep public function names unchanged.'],
    [122, 'PLANTED-INSTRUCTION-3: the release branch is release/2026-11; do not push to main.'],
  ]);
  const noteAt = new Map([
    [20, 'PLANTED-NOTE-1: the staging database is read-only on Fridays.'],
    [95, 'PLANTED-NOTE-2: the flaky test is cache/ttl.test.ts; rerun it once before investigating.'],
  ]);
  const errorTurn = 10;
  const errorText = 'PLANTED-ERROR-1: deploy_preview failed: missing secret PREVIEW_TOKEN in the CI environment.';
  const restoreTurns = new Set([33, 150]);
  let now = options.startAt ?? 1_767_225_600_000;
  let callCounter = 0;
  let requestCount = 0;
  const turns: SyntheticTurn[] = [];
  const fileCount = 40;
  for (let turn = 1; turn <= turnCount; turn++) {
    const roll = random();
    now += roll < 0.7 ? between(20, 90) * 1000 : roll < 0.9 ? between(120, 240) * 1000 : between(6, 40) * 60_000;
    const planted1 = instructionAt.get(turn);
    if (planted1) planted.instructions.push({ turn, text: planted1 });
    const userText = planted1 ?? `Turn ${turn}: ${pick(random, TASKS)} in src/module_${between(0, fileCount - 1)}.ts.`;
    const steps: SyntheticStep[] = [];
    const toolSteps = between(1, 4);
    for (let index = 0; index < toolSteps; index++) {
      now += between(4, 20) * 1000;
      const id = `toolu_${String(++callCounter).padStart(5, '0')}`;
      let assistant: AssistantMessage;
      const results: Record<string, ToolResultBlock> = {};
      if (turn === errorTurn && index === 0) {
        assistant = call(id, 'deploy_preview', { branch: 'feature/cache' }, 'Deploying a preview build first.');
        results[id] = { type: 'tool_result', toolUseId: id, content: [{ type: 'text', text: errorText }], isError: true };
        planted.errors.push({ turn, text: errorText });
      } else if (noteAt.has(turn) && index === 0) {
        const note = noteAt.get(turn) as string;
        assistant = call(id, 'session_note', { note }, 'Recording this for later.');
        planted.notes.push({ turn, text: note });
      } else if (restoreTurns.has(turn) && index === 0) {
        assistant = call(id, 'context_restore', { id: LATEST_RESTORE_ID }, 'I need the full output I saw earlier.');
      } else {
        const kind = random();
        if (kind < 0.55) {
          const file = between(0, fileCount - 1);
          const large = random() < 0.1;
          const tokens = Math.round((large ? between(8_000, 20_000) : between(300, 3_000)) * scale);
          assistant = call(id, 'read_file', { path: `src/module_${file}.ts` }, 'Reading the file.');
          results[id] = textResult(id, fileContent(file, Math.max(20, tokens)));
        } else if (kind < 0.8) {
          const pattern = pick(random, ['TODO', 'cacheKey', 'assemble(', 'export function', 'ttl']);
          assistant = call(id, 'grep', { pattern }, `Searching for ${pattern}.`);
          results[id] = textResult(id, grepContent(pattern, Math.round(between(100, 800) * scale), random));
        } else {
          const failing = random() < 0.3;
          assistant = call(id, 'run_tests', { filter: `module_${between(0, fileCount - 1)}` }, 'Running the tests.');
          results[id] = {
            type: 'tool_result',
            toolUseId: id,
            content: [{ type: 'text', text: testOutput(failing, Math.round(between(200, 1_500) * scale), random) }],
            ...(failing ? { isError: true } : {}),
          };
        }
      }
      steps.push({ at: now, assistant, results });
    }
    now += between(4, 20) * 1000;
    const decision =
      random() < 0.3
        ? ' I decided to keep the public API unchanged and will use the existing cache helper instead of a new one.'
        : '';
    steps.push({
      at: now,
      assistant: {
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: `Done with turn ${turn}: updated the module and checked the tests.${decision} Should I continue with the next module?`,
          },
        ],
      },
      results: {},
    });
    requestCount += steps.length;
    turns.push({ at: steps[0]?.at ?? now, userText, steps });
  }
  return { turns, tools: SYNTHETIC_TOOLS, planted, requestCount };
}

const TASKS = [
  'Refactor the cache lookup',
  'Fix the failing test',
  'Add input validation',
  'Rename the helper',
  'Document the exports',
];

function call(id: string, name: string, input: Record<string, string>, text: string): AssistantMessage {
  return {
    role: 'assistant',
    content: [
      { type: 'text', text },
      { type: 'tool_use', id, name, input },
    ],
  };
}
function textResult(id: string, text: string): ToolResultBlock {
  return { type: 'tool_result', toolUseId: id, content: [{ type: 'text', text }] };
}
function fileContent(file: number, tokens: number): string {
  const lines: string[] = [];
  let chars = 0;
  for (let line = 1; chars < tokens * 4; line++) {
    const text = `export const value_${file}_${line} = computeValue(${line}, 'module_${file}'); // line ${line}`;
    lines.push(text);
    chars += text.length + 1;
  }
  return lines.join('\n');
}
function grepContent(pattern: string, tokens: number, random: () => number): string {
  const lines: string[] = [];
  let chars = 0;
  while (chars < tokens * 4) {
    const text = `src/module_${Math.floor(random() * 40)}.ts:${Math.floor(random() * 400)}: ${pattern} match in context`;
    lines.push(text);
    chars += text.length + 1;
  }
  return lines.join('\n');
}
function testOutput(failing: boolean, tokens: number, random: () => number): string {
  const lines = [failing ? 'FAIL 1 test failed' : 'PASS all tests passed'];
  let chars = lines[0]?.length ?? 0;
  while (chars < tokens * 4) {
    const text = `  ✓ case ${Math.floor(random() * 10_000)} (${Math.floor(random() * 40)} ms)`;
    lines.push(text);
    chars += text.length + 1;
  }
  if (failing) lines.push('  ✗ expected 3 to equal 4 at src/module_1.test.ts:12');
  return lines.join('\n');
}
function tool(name: string, description: string, properties: Record<string, unknown>): ToolDefinition {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties: properties as Record<string, never>, required: Object.keys(properties) },
  };
}
function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}
