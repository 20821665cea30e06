import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export type ChromiumLookup = { found: true; executablePath: string } | { found: false; reason: string };

/** Debian's `chromium` (or `CHROMIUM_PATH`); playwright cannot download browsers on this machine. */
export function findChromium(): ChromiumLookup {
  const fromEnvironment = process.env.CHROMIUM_PATH;
  if (fromEnvironment && existsSync(fromEnvironment)) return { found: true, executablePath: fromEnvironment };
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const path = execFileSync('which', [name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (path) return { found: true, executablePath: path };
    } catch {
      // not on the PATH under this name
    }
  }
  return { found: false, reason: 'no Chromium found (which chromium); install Debian package "chromium" or set CHROMIUM_PATH' };
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
