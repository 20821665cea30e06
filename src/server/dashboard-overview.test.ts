import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CachetEvent } from '../events/catalog.js';
import { openTraceStore } from '../trace/open-trace-store.js';
import { FLEET_T0, fleetEvents } from '../trace/test-support/fleet-events.js';
import type { TraceStore } from '../trace/trace-store.js';
import { type RunningServer, startServer } from './start-server.js';
import { findChromium, HEADLESS_CHROMIUM_FLAGS, headlessChromiumEnvironment } from './test-support/find-chromium.js';

const browser = await findChromium();
if (!browser.found) console.warn(`SKIPPED overview browser test: ${browser.reason}`);

/** Screenshots are kept as test artifacts (gitignored). */
const ARTIFACTS = 'test-output';
const STRESSED = 'proxy-conversation@anthropic-1';

/**
 * A proxied session as the issue found it: 384 requests, 50 breaks, nearly every input token
 * written (write share ~97.6%), so writes cost more than reads saved (negative savings).
 */
function stressedSession(): CachetEvent[] {
  const events: CachetEvent[] = [];
  const at = FLEET_T0 + 2 * 3_600_000;
  const push = (type: string, seq: number, time: number, payload: unknown) =>
    events.push({ type, sessionId: STRESSED, seq, at: time, payload } as CachetEvent);
  push('session.started', 0, at, {
    model: 'claude-sonnet-4-5',
    provider: 'anthropic',
    strategy: 'proxy',
    source: 'proxy',
    client: 'claude-cli/2.1.3',
    globalPrefixHash: '',
    sessionPrefixHash: STRESSED,
  });
  let seq = 1;
  const causes = ['clock', 'ttl-expired', 'tools-changed', 'history-edited'] as const;
  for (let request = 0; request < 384; request++) {
    const time = at + request * 5_000;
    const usage = {
      uncachedInputTokens: 10,
      cacheReadTokens: 90,
      cacheWrite5mTokens: 4_100,
      cacheWrite1hTokens: 0,
      outputTokens: 50,
      reasoningTokens: 0,
      raw: {},
    };
    push('usage.recorded', seq++, time, {
      turn: request,
      step: 0,
      model: 'claude-sonnet-4-5',
      usage,
      costUsd: (10 * 3 + 90 * 0.3 + 4_100 * 3.75 + 50 * 15) / 1e6,
      uncachedCostUsd: (4_200 * 3 + 50 * 15) / 1e6,
    });
    if (request % 7 === 3 && request < 7 * 50) {
      push('cache.break', seq++, time, {
        turn: request,
        step: 0,
        cause: causes[request % causes.length],
        zone: 'messages',
        path: `messages[${request}]`,
        byteOffset: 0,
        before: null,
        after: null,
        missedTokens: 4_000,
      });
    }
  }
  return events;
}

describe.skipIf(!browser.found)('overview and session pages in Chromium', () => {
  let directory: string;
  let store: TraceStore;
  let server: RunningServer;
  let chromiumBrowser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'cachet-overview-'));
    const path = join(directory, 'traces.db');
    const writer = await openTraceStore(path);
    const quiet = [...fleetEvents({ sessions: 1, requestsPerSession: 1 })].map((event) => ({ ...event, sessionId: 'quiet' }));
    await writer.appendBatch([...fleetEvents({ sessions: 30, requestsPerSession: 8 }), ...stressedSession(), ...quiet]);
    await writer.close();
    store = await openTraceStore(path);
    server = await startServer({ store, port: 0 });
    chromiumBrowser = await chromium.launch({
      executablePath: browser.found ? browser.executablePath : '',
      headless: true,
      args: HEADLESS_CHROMIUM_FLAGS,
      env: headlessChromiumEnvironment(),
    });
    mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await chromiumBrowser?.close();
    await server?.close();
    await store?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  async function open(width: number, hash: string): Promise<Page> {
    const page = await chromiumBrowser.newPage({ viewport: { width, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(`${server.url}/${hash}`);
    await page.waitForSelector('body[data-ready="true"]');
    return page;
  }

  const horizontalOverflow = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  it.each([1280, 800])('lands on the overview: totals, causes by money lost, worst sessions, regret (%i px)', async (width) => {
    const page = await open(width, '#');
    expect(await page.getAttribute('body', 'data-view')).toBe('overview');
    const report = await store.overview();
    const metric = async (name: string) =>
      Number(await page.locator(`#totals [data-metric="${name}"]`).getAttribute('data-value'));
    expect(await metric('costUsd')).toBe(report.totals.costUsd);
    expect(await metric('savingsUsd')).toBe(report.totals.savingsUsd);
    expect(await metric('hitRate')).toBe(report.totals.hitRate);
    const causes = await page.locator('#causes tbody tr').evaluateAll((rows) => rows.map((row) => row.dataset.cause));
    expect(causes).toEqual(report.causes.map((cause) => cause.cause));
    expect(await page.locator('#worst a[data-session-link]').first().getAttribute('data-session-link')).toBe(
      report.worstSessions[0]!.sessionId,
    );
    expect(await page.isVisible('#regret')).toBe(true);
    expect(await page.locator('#session-list tbody tr').count()).toBe(25);
    expect(await page.textContent('#page')).toBe('1–25 of 32 sessions');
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${ARTIFACTS}/overview-${width}.png`, fullPage: true });
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('filters, groups and pages the session list; an example break opens its session at that request', async () => {
    const page = await open(1280, '#group=source');
    expect(await page.locator('#groups li').count()).toBe(3);
    await page.click('#groups li[data-group="simulation"] a');
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForFunction(() => location.hash.includes('source=simulation'));
    await page.waitForSelector('body[data-ready="true"]');
    const simulated = await store.sessionList({ source: 'simulation', limit: 500 });
    expect(await page.textContent('#page')).toBe(`1–${simulated.total} of ${simulated.total} sessions`);
    expect(await page.inputValue('#filters select[name="source"]')).toBe('simulation');
    const example = page.locator('#causes a[data-example]').first();
    await example.click();
    await page.waitForSelector('body[data-ready="true"][data-view="session"]');
    expect(await page.locator('#requests tr[aria-current="true"]').count()).toBe(1);
    // Back returns to the overview as it was filtered.
    await page.click('#back');
    await page.waitForSelector('body[data-ready="true"][data-view="overview"]');
    expect(await page.inputValue('#filters select[name="source"]')).toBe('simulation');
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it.each([1280, 800])('keeps 50 break labels apart, 384 requests readable and no overflow (%i px)', async (width) => {
    const page = await open(width, `#session=${encodeURIComponent(STRESSED)}`);
    const boxes = await page.locator('#break-labels .break-label').evaluateAll((labels) =>
      labels.map((label) => {
        const box = label.getBoundingClientRect();
        return { left: box.left, right: box.right, top: box.top, bottom: box.bottom };
      }),
    );
    expect(boxes.length).toBeGreaterThan(3);
    for (const [index, box] of boxes.entries()) {
      for (const other of boxes.slice(index + 1)) {
        const apart = box.right <= other.left || other.right <= box.left || box.bottom <= other.top || other.bottom <= box.top;
        expect(apart, JSON.stringify({ box, other })).toBe(true);
      }
    }
    const hidden = Number(await page.getAttribute('#break-labels', 'data-hidden'));
    expect(boxes.length + hidden).toBe(50);
    expect(await page.locator('#breaks li[data-cause]').count()).toBe(50);
    // Negative savings read as a loss, in warning colour; so does a write share above the healthy 1/N.
    const savings = page.locator('#session [data-metric="savingsUsd"]');
    expect(await savings.textContent()).toMatch(/^−\$\d+\.\d{4}$/);
    expect(await savings.getAttribute('data-tone')).toBe('warn');
    expect(await page.locator('#session [data-metric="cacheWriteShare"]').textContent()).toBe('97.6%');
    expect(await page.locator('#session [data-metric="cacheWriteShare"]').getAttribute('data-tone')).toBe('warn');
    // The proxy numbers turns from the last message (a tool result is a step), so they are shown as for any session.
    expect(await page.textContent('#turn-heading')).toBe('Turn.step');
    expect(await page.textContent('#session-title')).toBe(`proxy (claude-cli/2.1.3) · proxy — ${STRESSED}`);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${ARTIFACTS}/session-384-requests-${width}.png` });
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('shows "none" without error colour when a session has no break', async () => {
    const page = await open(1280, '#session=quiet');
    const colour = await page.locator('#breaks li.none').evaluate((item) => getComputedStyle(item).color);
    expect(colour).toBe(await page.evaluate(() => getComputedStyle(document.body).color));
    await page.close();
  });
});
