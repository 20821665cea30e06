import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { STRATEGY_NAMES } from '../simulate/strategy.js';
import { bundledWorkloadNames } from '../workloads/bundled-workloads.js';
import type { CliOutput } from './cli-options.js';
import { main } from './main.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const directory = mkdtempSync(join(tmpdir(), 'cachet-cli-'));

/** The CLI in a child process, the way `npm run cachet -- ...` runs it. */
function cachet(...args: string[]) {
  return cachetIn(root, args);
}

function cachetIn(cwd: string, args: string[], env: Record<string, string> = {}) {
  const { CACHET_DB: _ignored, ...inherited } = process.env;
  // tsx resolved from the project, so the child can run in any working directory.
  const tsx = pathToFileURL(createRequire(join(root, 'package.json')).resolve('tsx')).href;
  const result = spawnSync(process.execPath, ['--import', tsx, join(root, 'src/cli/main.ts'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...inherited, NO_COLOR: '1', ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function captured(): CliOutput & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text), errIsTty: false };
}

describe('cachet (child process)', () => {
  it('simulate --json prints exactly one JSON object whose totals add up', () => {
    const run = cachet('simulate', 'below-minimum', '--json');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const parsed = JSON.parse(lines[0]!);
    expect(parsed).toMatchObject({
      workload: 'below-minimum',
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      strategy: 'cachet',
    });
    const input = parsed.requests.reduce((sum: number, request: { inputTokens: number }) => sum + request.inputTokens, 0);
    expect(parsed.totals.inputTokens).toBe(input);
    expect(parsed.totals.readShare).toBe(parsed.totals.cacheReadTokens / parsed.totals.inputTokens);
    expect(parsed.totals.regret).toBeCloseTo(parsed.totals.costUsd / parsed.totals.oracleCostUsd - 1, 12);
    expect(parsed.totals.oracleCostUsd).toBeLessThanOrEqual(parsed.totals.costUsd);
    expect(parsed.oracle.futureKnowledge).toContain('next-gap');
  });

  it('exits 2 naming file, path and problem for a bad workload file', () => {
    const file = join(directory, 'broken.yaml');
    writeFileSync(
      file,
      'name: broken\ndescription: x\nprovider: anthropic\nmodel: claude-sonnet-4-5\nstart: 2026-05-14T09:00:00Z\nglobal:\n  persona: Hi.\nturns:\n  - user: Hello\n    steps:\n      - text: Hi\n        toolCalls:\n          - name: missing_tool\n            result: ok\n      - text: Done.\n',
    );
    const run = cachet('simulate', file);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}:13: turns[0].steps[0].toolCalls[0].name: tool "missing_tool" is not available`);
    expect(run.stdout).toBe('');
  });

  it('exits 1 for other failures: unknown provider, unknown command', () => {
    const provider = cachet('simulate', 'coding-agent', '--provider', 'watsonx');
    expect(provider.code).toBe(1);
    expect(provider.stderr).toMatch(/'watsonx' is invalid\. expected one of anthropic, /);
    expect(provider.stdout).toBe('');
    const command = cachet('frobnicate');
    expect(command.code).toBe(1);
    expect(command.stderr).toContain("unknown command 'frobnicate'");
  });

  it('demo runs every bundled workload end to end and stores each run as a session in SQLite (--db)', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'cachet-demo-')), 'demo.db');
    const run = cachetIn(directory, ['demo', '--db', store]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`traces: ${store} (see them with \`cachet serve --db ${store}\`)`);
    const { openTraceStore } = await import('../trace/open-trace-store.js');
    const opened = await openTraceStore(store);
    const sessions = await opened.sessions({ limit: 100 });
    await opened.close();
    const workloads = bundledWorkloadNames();
    expect(sessions).toHaveLength(workloads.length * STRATEGY_NAMES.length);
    const names = sessions.map((session) => session.sessionId.split('/').slice(1).join('/')).sort();
    expect(names).toEqual(workloads.flatMap((name) => STRATEGY_NAMES.map((strategy) => `${name}/${strategy}`)).sort());
    expect(sessions.every((session) => session.requests > 0)).toBe(true);
    // Nothing was written to the default location in the working directory.
    expect(existsSync(join(directory, '.cachet'))).toBe(false);
    // Seven workloads × six strategies, the 384-request idle-gap session among them.
  }, 1_200_000);

  it('demo writes to $CACHET_DB when --db is not given, as serve reads it', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'cachet-demo-env-')), 'env.db');
    const run = cachetIn(directory, ['demo', '--only', 'below-minimum'], { CACHET_DB: store });
    expect(run.code).toBe(0);
    const { openTraceStore } = await import('../trace/open-trace-store.js');
    const opened = await openTraceStore(store);
    const sessions = await opened.sessions();
    await opened.close();
    expect(sessions).toHaveLength(STRATEGY_NAMES.length);
  }, 60_000);

  it('render prints one wire body per request, one JSON object per line', () => {
    const run = cachet('render', 'below-minimum', '--provider', 'openai-chat', '--strategy', 'markers');
    expect(run.code).toBe(0);
    const bodies = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(bodies).toHaveLength(3);
    expect(bodies.every((body) => Array.isArray(body.messages))).toBe(true);
  });
});

describe('cachet (in process)', () => {
  it('demo prints a table per workload with every strategy, the oracle and a verdict, progress on stderr', async () => {
    const output = captured();
    expect(await main(['demo', '--only', 'below-minimum', '--no-trace'], output)).toBe(0);
    const text = output.stdout.join('\n');
    for (const word of [...STRATEGY_NAMES, 'oracle', 'regret', 'read share', 'vs naive', 'vs uncached', 'Verdict:'])
      expect(text).toContain(word);
    expect(text).toMatch(/over the hindsight oracle/);
    expect(output.stderr.join('')).toContain(
      `[${STRATEGY_NAMES.length}/${STRATEGY_NAMES.length}] below-minimum · cachet 3/3 requests`,
    );
  });

  it('demo writes its traces to the trace store', async () => {
    const output = captured();
    const store = join(directory, 'traces.db');
    expect(await main(['demo', '--only', 'below-minimum', '--db', store], output)).toBe(0);
    const { openTraceStore } = await import('../trace/open-trace-store.js');
    const opened = await openTraceStore(store);
    const sessions = await opened.sessions();
    await opened.close();
    expect(sessions.length).toBe(STRATEGY_NAMES.length);
  });

  it('simulate --compaction runs the compaction pipeline before each cachet request', async () => {
    const output = captured();
    const file = join(directory, 'compaction-events.jsonl');
    expect(
      await main(['simulate', 'coding-agent', '--compaction', '--window', '20000', '--events', file, '--json'], output),
    ).toBe(0);
    const types = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).type as string);
    expect(types.some((type) => type.startsWith('compaction.'))).toBe(true);
    expect(JSON.parse(output.stdout.join('')).strategy).toBe('cachet');
  });

  it('simulate --events writes the events as JSON lines', async () => {
    const output = captured();
    const file = join(directory, 'events.jsonl');
    expect(await main(['simulate', 'coding-agent', '--events', file], output)).toBe(0);
    const events = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0].type).toBe('session.started');
    expect(events.filter((event) => event.type === 'request.assembled')).toHaveLength(17);
    expect(output.stdout.join('\n')).toContain('efficiency');
  });
});
