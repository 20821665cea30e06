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

/**
 * The CLI in a child process, the way `npm run cachet -- ...` runs it: the entry point, its exit
 * code and a stdout that holds only the output. Other tests call `main` in this process (the same
 * code, without a tsx start-up per run); `npm run check:package` runs the built CLI as a process.
 */
function cachet(...args: string[]) {
  const { CACHET_DB: _ignored, ...inherited } = process.env;
  // tsx resolved from the project, so the child can run in any working directory.
  const tsx = pathToFileURL(createRequire(join(root, 'package.json')).resolve('tsx')).href;
  const result = spawnSync(process.execPath, ['--import', tsx, join(root, 'src/cli/main.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...inherited, NO_COLOR: '1' },
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
});

describe('cachet (in process)', () => {
  it('exits 1 for other failures: unknown provider, unknown command', async () => {
    const provider = captured();
    expect(await main(['simulate', 'coding-agent', '--provider', 'watsonx'], provider)).toBe(1);
    expect(provider.stderr.join('')).toMatch(/'watsonx' is invalid\. expected one of anthropic, /);
    expect(provider.stdout).toEqual([]);
    const command = captured();
    expect(await main(['frobnicate'], command)).toBe(1);
    expect(command.stderr.join('')).toContain("unknown command 'frobnicate'");
  });

  it('demo runs bundled workloads end to end and stores each run as a session in SQLite (--db)', async () => {
    // Two small workloads of different providers (so the runs go through the worker threads) keep
    // this test quick; `npm run bench -- demo` runs every workload against bench/support/demo-golden.txt.
    const only = ['below-minimum', 'data-analyst-deepseek'];
    const store = join(mkdtempSync(join(tmpdir(), 'cachet-demo-')), 'demo.db');
    const output = captured();
    const cwd = process.cwd();
    process.chdir(directory);
    try {
      expect(await main(['demo', '--db', store, '--only', ...only], output)).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    // From a clone `dist/` is not built, so the hint is the package-script form that works there.
    expect(output.stderr.join('')).toContain(`traces: ${store} (see them with \`npm run cachet -- serve --db ${store}\`)`);
    const { openTraceStore } = await import('../trace/open-trace-store.js');
    const opened = await openTraceStore(store);
    const sessions = await opened.sessions({ limit: 100 });
    await opened.close();
    const workloads = bundledWorkloadNames().filter((name) => only.some((part) => name.includes(part)));
    expect(workloads).toHaveLength(2);
    expect(sessions).toHaveLength(workloads.length * STRATEGY_NAMES.length);
    const names = sessions.map((session) => session.sessionId.split('/').slice(1).join('/')).sort();
    expect(names).toEqual(workloads.flatMap((name) => STRATEGY_NAMES.map((strategy) => `${name}/${strategy}`)).sort());
    expect(sessions.every((session) => session.requests > 0)).toBe(true);
    // Nothing was written to the default location in the working directory.
    expect(existsSync(join(directory, '.cachet'))).toBe(false);
  }, 300_000);

  it('demo writes to $CACHET_DB when --db is not given, as serve reads it', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'cachet-demo-env-')), 'env.db');
    const saved = process.env.CACHET_DB;
    process.env.CACHET_DB = store;
    try {
      expect(await main(['demo', '--only', 'below-minimum'], captured())).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.CACHET_DB;
      else process.env.CACHET_DB = saved;
    }
    const { openTraceStore } = await import('../trace/open-trace-store.js');
    const opened = await openTraceStore(store);
    const sessions = await opened.sessions();
    await opened.close();
    expect(sessions).toHaveLength(STRATEGY_NAMES.length);
  });

  it('render prints one wire body per request, one JSON object per line', async () => {
    const output = captured();
    expect(await main(['render', 'below-minimum', '--provider', 'openai-chat', '--strategy', 'markers'], output)).toBe(0);
    const bodies = output.stdout
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(bodies).toHaveLength(3);
    expect(bodies.every((body) => Array.isArray(body.messages))).toBe(true);
  });

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

  it('--version prints the package version', async () => {
    const output = captured();
    expect(await main(['--version'], output)).toBe(0);
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(output.stdout.join('').trim()).toBe(version);
  });

  it('workloads lists every bundled workload; a missing one points to it (exit 2)', async () => {
    const output = captured();
    expect(await main(['workloads'], output)).toBe(0);
    for (const name of bundledWorkloadNames()) expect(output.stdout.join('\n')).toContain(name);
    const missing = captured();
    expect(await main(['simulate', 'no-such-workload'], missing)).toBe(2);
    expect(missing.stderr.join('')).toMatch(/no bundled workload named "no-such-workload" \(run `cachet workloads`/);
  });

  it('demo --model runs the workloads on another model of their provider: its prices in every row, a warning when unpriced', async () => {
    const costOfCachet = (lines: string[]) => lines.join('\n').match(/^cachet\s+3\s+921\s+.*?(\$[\d.]+)/m)?.[1];
    const own = captured();
    expect(await main(['demo', '--only', 'below-minimum', '--no-trace'], own)).toBe(0);
    const fable = captured();
    expect(await main(['demo', '--only', 'below-minimum', '--model', 'claude-fable-5-1', '--no-trace'], fable)).toBe(0);
    expect(own.stdout.join('\n')).toContain('— anthropic claude-haiku-4-5');
    expect(fable.stdout.join('\n')).toContain('— anthropic claude-fable-5-1');
    // Fable's input price is ten times Haiku 4.5's: the same 921 uncached tokens cost ten times as much.
    expect(costOfCachet(own.stdout)).toBe('$0.0009');
    expect(costOfCachet(fable.stdout)).toBe('$0.0092');
    const unknown = captured();
    expect(await main(['demo', '--only', 'below-minimum', '--model', 'claude-nonexistent-9', '--no-trace'], unknown)).toBe(0);
    expect(unknown.stderr.join('')).toMatch(/below-minimum: no price is known for model "claude-nonexistent-9" on anthropic/);
    const empty = captured();
    expect(await main(['demo', '--only', 'below-minimum', '--model', ' ', '--no-trace'], empty)).toBe(1);
    expect(empty.stderr.join('')).toContain('--model needs a model id');
  });

  it('demo --only with no match fails instead of printing nothing', async () => {
    const output = captured();
    expect(await main(['demo', '--only', 'nosuch', '--no-trace'], output)).toBe(1);
    expect(output.stderr.join('')).toMatch(/no bundled workload matches --only nosuch .*cachet workloads/);
    expect(output.stdout).toEqual([]);
  });

  it('demo prints a legend above its tables', async () => {
    const output = captured();
    expect(await main(['demo', '--only', 'below-minimum', '--no-trace'], output)).toBe(0);
    const text = output.stdout.join('\n');
    const legend = text.indexOf('How to read the tables');
    const table = text.search(/strategy +requests/);
    expect(legend).toBeGreaterThanOrEqual(0);
    expect(table).toBeGreaterThan(legend);
  });

  it('simulate --window without --compaction is refused', async () => {
    const output = captured();
    expect(await main(['simulate', 'below-minimum', '--window', '5000'], output)).toBe(1);
    expect(output.stderr.join('')).toContain('--window only applies with --compaction');
  });

  it('simulate --compaction --window 1000 prints the warnings and fails: the window cannot be met', async () => {
    const output = captured();
    expect(await main(['simulate', 'coding-agent', '--compaction', '--window', '1000'], output)).toBe(1);
    const stderr = output.stderr.join('');
    expect(stderr).toMatch(/warning: compaction: request of \d+ tokens exceeds the 1000-token window/);
    expect(stderr).toMatch(/compaction: \d+ applied/);
    expect(stderr).toMatch(/error: --window 1000 cannot be met: \d+ of 17 requests/);
    expect(output.stdout.join('')).toContain('efficiency');
  });

  it.each([
    ['openai-chat', 'gpt-17-ultra'],
    ['anthropic', 'claude-sonnet-9'],
    ['openrouter', 'mistralai/mistral-large-2512'],
  ])('an unknown model (%s %s) is warned about and reported as unknown cost, never free', async (provider, model) => {
    const output = captured();
    expect(await main(['simulate', 'below-minimum', '--provider', provider, '--model', model, '--json'], output)).toBe(0);
    expect(output.stderr.join('')).toContain(`warning: no price is known for model "${model}" on ${provider}`);
    const report = JSON.parse(output.stdout.join(''));
    expect(report.priced).toBe(false);
    expect(report.totals.costUsd).toBeNull();
    expect(report.requests.every((request: { costUsd: number | null }) => request.costUsd === null)).toBe(true);
    const text = captured();
    expect(await main(['simulate', 'below-minimum', '--provider', provider, '--model', model], text)).toBe(0);
    expect(text.stdout.join('')).toContain(`cost unknown: no price for ${model}`);
    expect(text.stdout.join('')).not.toContain('local engine');
  });

  it('a known model is priced and a local engine is free, both without a warning', async () => {
    const priced = captured();
    expect(await main(['simulate', 'below-minimum', '--json'], priced)).toBe(0);
    expect(JSON.parse(priced.stdout.join('')).priced).toBe(true);
    // A two-turn session on a local engine (the bundled one takes seconds; the price is what counts here).
    const localFile = join(directory, 'tiny-local.yaml');
    writeFileSync(
      localFile,
      'name: tiny-local\ndescription: x\nprovider: openai-compatible\nmodel: qwen3-8b\nstart: 2026-05-14T09:00:00Z\nglobal:\n  persona: Hi.\n  tools:\n    - { name: lookup, description: d, inputSchema: { type: object } }\nturns:\n  - user: q\n    steps:\n      - toolCalls: [{ name: lookup, result: ok }]\n      - text: a\n  - user: r\n    after: 1m\n    steps:\n      - text: b\n',
    );
    const local = captured();
    expect(await main(['simulate', localFile, '--json'], local)).toBe(0);
    expect(JSON.parse(local.stdout.join('')).requests).toHaveLength(3);
    expect(JSON.parse(local.stdout.join('')).totals.costUsd).toBe(0);
    expect([...priced.stderr, ...local.stderr].join('')).not.toContain('no price');
  });

  describe('hostile workload files: exit 2, naming the file', () => {
    const header =
      'name: hostile\ndescription: x\nprovider: anthropic\nmodel: claude-sonnet-5\nstart: 2026-05-14T09:00:00Z\nglobal:\n  persona: Hi.\n  tools:\n    - { name: lookup, description: d, inputSchema: { type: object } }\n';
    const aliasBomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      aliasBomb.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`);
    }
    const corpus: Array<[string, string, RegExp]> = [
      ['alias-bomb.yaml', `${aliasBomb.join('\n')}\n`, /refused: .*alias/i],
      [
        'expansion-bomb.yaml',
        `${header}turns:\n  - repeat:\n      count: 10000\n      turns:\n        - user: q\n          steps:\n            - toolCalls: [{ name: lookup, result: { tokens: 200000 } }]\n            - text: a\n`,
        /turns\[0\]\.repeat: expanding this workload would create about/,
      ],
      ['deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, /nested too deeply to parse/],
      [
        'deep-input.yaml',
        `${header}turns:\n  - user: q\n    steps:\n      - toolCalls: [{ name: lookup, input: ${'{"a":'.repeat(300)}1${'}'.repeat(300)}, result: ok }]\n      - text: a\n`,
        /nested at most 256 levels deep/,
      ],
    ];
    it.each(corpus)('%s', async (name, text, problem) => {
      const file = join(directory, name);
      writeFileSync(file, text);
      const output = captured();
      expect(await main(['simulate', file], output)).toBe(2);
      const stderr = output.stderr.join('');
      expect(stderr.startsWith(`error: ${file}`)).toBe(true);
      expect(stderr).toMatch(problem);
      expect(output.stdout).toEqual([]);
    });

    it('a FIFO', async () => {
      const fifo = join(directory, 'pipe.yaml');
      spawnSync('mkfifo', [fifo]);
      const output = captured();
      expect(await main(['simulate', fifo], output)).toBe(2);
      expect(output.stderr.join('')).toContain(`error: ${fifo}: (root): not a regular file (a FIFO)`);
    });
  });
});
