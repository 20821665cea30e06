import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTraceStore } from '../trace/open-trace-store.js';
import type { TraceStore } from '../trace/trace-store.js';
import { type RunningServer, startServer } from './start-server.js';
import { findChromium, HEADLESS_CHROMIUM_FLAGS, headlessChromiumEnvironment } from './test-support/find-chromium.js';
import { recordSampleRun } from './test-support/record-sample-run.js';

const browser = await findChromium();
const inCi = process.env.CI === 'true' || process.env.CI === '1';
if (!browser.found && !inCi) console.warn(`SKIPPED dashboard browser test: ${browser.reason}`);

// Registered only when it applies, so a run with Chromium reports nothing skipped.
if (!browser.found && inCi) {
  describe('dashboard in a browser under CI', () => {
    it('needs Chromium', () => {
      throw new Error(`CI=true requires Chromium: ${browser.reason}`);
    });
  });
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
const usd = (value: number) => `${value < 0 ? '−' : ''}$${Math.abs(value).toFixed(4)}`;
const tokens = (value: number) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(value);

describe.skipIf(!browser.found)('dashboard in Chromium', () => {
  const token = 'dashboard-test-token-0123456789';
  let directory: string;
  let store: TraceStore;
  let server: RunningServer;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'cachet-dashboard-'));
    const path = join(directory, 'traces.db');
    // A real run written to SQLite by one process, then served from a fresh connection.
    const writer = await openTraceStore(path);
    await recordSampleRun(writer, { sessionId: 'sample-coding-session' });
    await recordSampleRun(writer, { sessionId: 'earlier-session', start: Date.UTC(2026, 10, 20, 9, 0, 0) });
    // Two misses the provider diagnosed too (cachet proxy --plan on Anthropic): one agreeing, one not.
    const diagnosed = (seq: number, cause: 'clock' | 'history-edited', serverType: string) => ({
      type: 'cache.break' as const,
      sessionId: 'earlier-session',
      at: Date.UTC(2026, 10, 20, 9, 30, seq),
      seq: 10_000 + seq,
      payload: {
        turn: 90 + seq,
        step: 0,
        cause,
        zone: 'system' as const,
        path: 'system[0]',
        byteOffset: 0,
        before: null,
        after: null,
        missedTokens: 500,
        serverCause: { type: serverType, missedTokens: 500 },
      },
    });
    await writer.appendBatch([diagnosed(0, 'clock', 'system_changed'), diagnosed(1, 'history-edited', 'tools_changed')]);
    // Three requests a `cachet proxy --plan` forwarded: the client's own markers against Cachet's plan, as modelled.
    const forwarded = (seq: number, clientCostUsd: number, plannedCostUsd: number) => ({
      type: 'proxy.forwarded' as const,
      sessionId: 'earlier-session',
      at: Date.UTC(2026, 10, 20, 9, 40, seq),
      seq: 20_000 + seq,
      payload: {
        turn: 95 + seq,
        step: 0,
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        mode: 'plan' as const,
        status: 200,
        durationMs: 812.5,
        responseId: `msg_${seq}`,
        plannedBreakpoints: ['system[0]', `messages[${seq * 2}].content[0]`],
        plan: {
          client: { inputTokens: 10_000, cacheReadTokens: seq === 0 ? 0 : 4_000, cacheWriteTokens: 0, costUsd: clientCostUsd },
          planned: {
            inputTokens: 10_000,
            cacheReadTokens: seq === 0 ? 0 : 9_500,
            cacheWriteTokens: 500,
            costUsd: plannedCostUsd,
          },
          savedUsd: clientCostUsd - plannedCostUsd,
        },
      },
    });
    await writer.appendBatch([forwarded(0, 0.03, 0.0375), forwarded(1, 0.0228, 0.0047), forwarded(2, 0.0228, 0.0047)]);
    await writer.close();
    store = await openTraceStore(path);
    server = await startServer({ store, port: 0, token });
    context = await chromium.launchPersistentContext(join(directory, 'profile'), {
      executablePath: browser.found ? browser.executablePath : '',
      headless: true,
      args: HEADLESS_CHROMIUM_FLAGS,
      env: headlessChromiumEnvironment(),
      viewport: { width: 1280, height: 1100 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
  });

  afterAll(async () => {
    await context?.close();
    await server?.close();
    await store?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it('renders a session’s per-request buckets, cost, hit rate and break markers, one click from the overview', async () => {
    await page.goto(`${server.url}/#token=${token}`);
    await page.waitForSelector('body[data-ready="true"][data-view="overview"]');
    // The overview lists both sessions, newest first, each named by where it came from.
    const listed = await page.locator('#session-list tbody tr').evaluateAll((rows) => rows.map((row) => row.dataset.sessionId));
    expect(listed).toEqual(['sample-coding-session', 'earlier-session']);
    await page.click('#session-list a[data-session-link="sample-coding-session"]');
    await page.waitForSelector('body[data-ready="true"][data-session="sample-coding-session"]');
    expect(await page.getAttribute('body', 'data-view')).toBe('session');

    const report = await store.cacheEffectiveness({ sessionId: 'sample-coding-session' });
    const figures = report.sessions[0]!;
    const metric = async (name: string) => {
      const cell = page.locator(`#session [data-metric="${name}"]`);
      return { value: Number(await cell.getAttribute('data-value')), text: await cell.textContent() };
    };
    expect(await metric('requests')).toEqual({ value: figures.requests, text: String(figures.requests) });
    expect(await metric('hitRate')).toEqual({ value: figures.hitRate, text: percent(figures.hitRate) });
    expect(await metric('cacheWriteShare')).toEqual({ value: figures.cacheWriteShare, text: percent(figures.cacheWriteShare) });
    expect(await metric('costUsd')).toEqual({ value: figures.costUsd, text: usd(figures.costUsd) });
    expect(await metric('savingsUsd')).toEqual({ value: figures.savingsUsd, text: usd(figures.savingsUsd) });

    const requests = await store.requests('sample-coding-session');
    const rows = await page
      .locator('#requests tbody tr')
      .evaluateAll((rowElements) =>
        rowElements.map((row) =>
          Object.fromEntries(
            Array.from(row.querySelectorAll('td')).map((cell) => [
              cell.dataset.column,
              { value: cell.dataset.value, text: cell.textContent },
            ]),
          ),
        ),
      );
    expect(rows).toHaveLength(requests.length);
    requests.forEach((request, index) => {
      const row = rows[index]!;
      expect(row.cacheRead).toEqual({ value: String(request.tokens.cacheRead), text: tokens(request.tokens.cacheRead) });
      expect(row.cacheWrite).toEqual({ value: String(request.tokens.cacheWrite), text: tokens(request.tokens.cacheWrite) });
      expect(row.uncachedInput).toEqual({
        value: String(request.tokens.uncachedInput),
        text: tokens(request.tokens.uncachedInput),
      });
      expect(row.hitRate!.text).toBe(percent(request.hitRate));
      expect(Number(row.costUsd!.value)).toBe(request.costUsd);
      expect(row.breaks!.value).toBe(request.breaks.map((cacheBreak) => cacheBreak.cause).join(','));
    });

    // One marker per break in the store, at the request it belongs to, naming its cause.
    const storedBreaks = requests.flatMap((request) =>
      request.breaks.map((cacheBreak) => ({ request: String(request.index + 1), cause: cacheBreak.cause })),
    );
    expect(storedBreaks.map((entry) => entry.cause)).toEqual(['ttl-expired', 'model-changed']);
    const shownBreaks = await page
      .locator('#breaks li[data-cause]')
      .evaluateAll((items) =>
        items.map((item) => ({ request: item.getAttribute('data-request'), cause: item.getAttribute('data-cause') })),
      );
    expect(shownBreaks).toEqual(storedBreaks);
    // A location names its zone once: `messages[6]`, never `messages messages[6]`.
    const breakTexts = await page.locator('#breaks li[data-cause]').allTextContents();
    expect(breakTexts.filter((text) => /\b(\w+) \1\[/.test(text))).toEqual([]);

    // The chart: uPlot drew on its canvas, with the three buckets and the hit-rate line in its legend.
    const legend = await page.locator('#chart .u-legend .u-label').allTextContents();
    expect(legend).toEqual(['request', 'uncached', 'written', 'read', 'hit rate']);
    const paintedPixels = await page.locator('#chart canvas').evaluate((canvas: HTMLCanvasElement) => {
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let red = 0;
      let green = 0;
      for (let offset = 0; offset < data.length; offset += 4) {
        const [r, g, b, a] = [data[offset]!, data[offset + 1]!, data[offset + 2]!, data[offset + 3]!];
        if (a > 200 && r > 180 && g < 60 && b < 60) red += 1; // break markers (#cf1322)
        if (a > 200 && r < 80 && g > 130 && b < 90) green += 1; // cache-read bars (#2f9e44)
      }
      return { red, green };
    });
    expect(paintedPixels.red).toBeGreaterThan(50);
    expect(paintedPixels.green).toBeGreaterThan(1000);

    // Not a `cachet proxy --plan` session: no plan section.
    expect(await page.isHidden('#plan')).toBe(true);

    mkdirSync('test-output', { recursive: true });
    await page.screenshot({ path: 'test-output/dashboard.png', fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('opens another session from the URL and shows that session’s figures', async () => {
    await page.goto(`${server.url}/#token=${token}&session=earlier-session`);
    await page.waitForSelector('body[data-ready="true"][data-session="earlier-session"]');
    const requests = await store.requests('earlier-session');
    expect(await page.locator('#requests tbody tr').count()).toBe(requests.length);
    // The name says where the session came from (the sample run is the library's own loop, unlabelled).
    expect(await page.textContent('#session-title')).toBe('unknown source · cachet — earlier-session');
    expect(await page.textContent('#agreement')).toBe('1 of 2 diagnosed misses agree (50.0%)');
    expect(await page.locator('#disagreements li').allTextContents()).toEqual([
      'Cachet: history-edited · provider: tools_changed · 1×',
    ]);
    // What --plan saved against the client's own markers, as the API sums it.
    expect(await page.isVisible('#plan')).toBe(true);
    const savings = await (
      await fetch(`${server.url}/analytics/plan_savings?session=earlier-session`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json();
    expect(savings).toMatchObject({ requests: 3 });
    const metric = async (name: string) => {
      const cell = page.locator(`#session [data-metric="${name}"]`);
      return { value: Number(await cell.getAttribute('data-value')), text: await cell.textContent() };
    };
    expect(await metric('planClientCostUsd')).toEqual({ value: savings.clientCostUsd, text: '$0.0756' });
    expect(await metric('planPlannedCostUsd')).toEqual({ value: savings.plannedCostUsd, text: '$0.0469' });
    expect(await metric('planSavedUsd')).toEqual({ value: savings.savedUsd, text: `$0.0287 (${percent(savings.savedShare)})` });
    expect(await metric('planClientReadShare')).toEqual({ value: 8_000 / 30_000, text: '26.7%' });
    expect(await metric('planPlannedReadShare')).toEqual({ value: 19_000 / 30_000, text: '63.3%' });
    expect(await page.textContent('#plan-requests')).toBe(
      "3 requests sent with Cachet's plan, both bodies judged by the cache model",
    );
    await page.screenshot({ path: 'test-output/dashboard-plan.png', fullPage: true });
    expect(pageErrors).toEqual([]);
  });

  it('shows the API error when the token in the URL is wrong', async () => {
    const other = await context.newPage();
    await other.goto(`${server.url}/#token=wrong-token-wrong-token`);
    await other.waitForSelector('body[data-ready="error"]');
    expect(await other.textContent('#status')).toMatch(/invalid bearer token/);
    await other.close();
  });

  it('draws its charts in a browser started under a POSIX locale (navigator.language en-US@posix)', async () => {
    const posix = await chromium.launch({
      executablePath: browser.found ? browser.executablePath : '',
      headless: true,
      args: HEADLESS_CHROMIUM_FLAGS,
      env: { ...headlessChromiumEnvironment(), LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
    });
    try {
      const posixPage = await posix.newPage();
      const errors: string[] = [];
      posixPage.on('pageerror', (error) => errors.push(error.message));
      // The tag such a browser reports (uPlot's Intl.NumberFormat refuses it): the case this test is for.
      await posixPage.goto('about:blank');
      expect(await posixPage.evaluate(() => navigator.language)).toBe('en-US@posix');
      await posixPage.goto(`${server.url}/#token=${token}`);
      await posixPage.waitForSelector('body[data-ready="true"][data-view="overview"]');
      expect(await posixPage.evaluate(() => navigator.language)).toBe('en-US');
      expect(errors).toEqual([]);
    } finally {
      await posix.close();
    }
  });
});
