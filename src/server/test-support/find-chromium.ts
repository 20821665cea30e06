import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export type ChromiumLookup =
  | { found: true; executablePath: string; source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium' }
  | { found: false; reason: string };

/**
 * A Chromium for the browser tests, without root and without a download at test time:
 * `CHROMIUM_PATH`, else a system Chromium on the PATH (Debian's `chromium`), else the Chromium
 * that the dev dependency `@sparticuz/chromium` carries inside its npm tarball (brotli-packed,
 * unpacked to the temp folder on first use, about 3 s; linux x64). Playwright's own browser
 * download cannot run on machines without open network, so it is never used.
 */
export async function findChromium(): Promise<ChromiumLookup> {
  const fromEnvironment = process.env.CHROMIUM_PATH;
  if (fromEnvironment && existsSync(fromEnvironment)) {
    return { found: true, executablePath: fromEnvironment, source: 'CHROMIUM_PATH' };
  }
  const onPath = systemChromium();
  if (onPath) return { found: true, executablePath: onPath, source: 'system' };
  try {
    const packaged = (await import('@sparticuz/chromium')).default;
    return { found: true, executablePath: await packaged.executablePath(), source: '@sparticuz/chromium' };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return {
      found: false,
      reason: `no Chromium: none on the PATH, and @sparticuz/chromium could not provide one (${detail}); run npm ci, install Debian's "chromium", or set CHROMIUM_PATH`,
    };
  }
}

function systemChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const path = execFileSync('which', [name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (path) return path;
    } catch {
      // not on the PATH under this name
    }
  }
  return undefined;
}

/** Flags for an offline, sandbox-less headless run (containers as root, no GPU, no network). */
export const HEADLESS_CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * The environment to launch Chromium with. Chromium takes its locale from `LC_ALL` / `LANG`, and
 * under `LANG=C.UTF-8` (Debian's default in containers, a fresh CI machine) `navigator.language`
 * is `en-US@posix`, which is no BCP 47 tag: uPlot's `new Intl.NumberFormat(navigator.language)`
 * throws while loading, and the dashboard shows "uPlot is not a constructor" instead of charts
 * (`--lang` does not change it in headless mode). The tests read figures formatted for en-US.
 */
export function headlessChromiumEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) environment[name] = value;
  return { ...environment, LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' };
}
