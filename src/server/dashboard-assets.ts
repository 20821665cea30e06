import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface StaticAsset {
  body: string;
  contentType: string;
}

/**
 * The dashboard's files: its own page and script (next to this module, in `dashboard/`) and
 * uPlot's browser build from node_modules. Served by the API server itself: no CDN, the
 * dashboard works offline.
 */
export function loadDashboardAssets(): Map<string, StaticAsset> {
  const require = createRequire(import.meta.url);
  const own = (name: string) => readFileSync(fileURLToPath(new URL(`./dashboard/${name}`, import.meta.url)), 'utf8');
  const vendor = (name: string) => readFileSync(require.resolve(`uplot/dist/${name}`), 'utf8');
  return new Map<string, StaticAsset>([
    ['/', { body: own('index.html'), contentType: 'text/html; charset=utf-8' }],
    ...['locale.js', 'dashboard.js', 'overview.js', 'session.js', 'start.js'].map((name): [string, StaticAsset] => [
      `/${name}`,
      { body: own(name), contentType: 'text/javascript; charset=utf-8' },
    ]),
    ['/dashboard.css', { body: own('dashboard.css'), contentType: 'text/css; charset=utf-8' }],
    ['/vendor/uPlot.iife.min.js', { body: vendor('uPlot.iife.min.js'), contentType: 'text/javascript; charset=utf-8' }],
    ['/vendor/uPlot.min.css', { body: vendor('uPlot.min.css'), contentType: 'text/css; charset=utf-8' }],
  ]);
}
