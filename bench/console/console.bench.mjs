// The console's initial bundle and first paint (issue 23).
//
//   node bench/console/console.bench.mjs [loads=7]
//
// 1. Bundle: the files packages/console/dist/index.html loads before any
//    route runs (entry script, modulepreloads, styles), gzipped (level 9, as a
//    server would compress them), against the 300 kB target; the lazy chunks
//    (run graph, playbook editor, inbox, connectors) listed beside it.
// 2. Page load in Debian's Chromium (playwright-core, the test flags) against
//    a real gateway serving the console (`startStack`, the in-process bus of
//    `pnpm start`): `loads` cold loads (a new browser context each, so no
//    cache) of the sign-in page and of the signed-in runs page. Reported:
//    first contentful paint (the browser's paint timing), DOMContentLoaded,
//    and time to interactive = navigation start → the page's form / table is
//    rendered and its main thread is idle (a 0 ms task runs) — medians and max.
//
// Build first (`pnpm build`). Writes bench/results/console.json.
import { cpus, loadavg, totalmem } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { http, registerUser, startStack } from '@af/testing';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'packages', 'console', 'dist');
const { chromium } = createRequire(join(root, 'packages', 'console', 'package.json'))('playwright-core');
const LOADS = Number(process.argv[2] ?? 7);
const TARGET_KB = 300;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

if (!existsSync(join(dist, 'index.html'))) throw new Error(`${dist}/index.html is missing: run \`pnpm build\` first`);

const gz = (path) => gzipSync(readFileSync(path), { level: 9 }).length;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const round = (x) => Math.round(x * 10) / 10;

// --- 1. bundle ---------------------------------------------------------------
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const initialFiles = ['index.html', ...[...html.matchAll(/(?:src|href)="\/([^"]+\.(?:js|css))"/g)].map((m) => m[1])];
const initial = initialFiles.map((f) => ({ file: f, bytes: readFileSync(join(dist, f)).length, gzip: gz(join(dist, f)) }));
const lazy = readdirSync(join(dist, 'assets'))
  .map((f) => `assets/${f}`)
  .filter((f) => !initialFiles.includes(f))
  .map((f) => ({ file: f, bytes: readFileSync(join(dist, f)).length, gzip: gz(join(dist, f)) }))
  .sort((a, b) => b.gzip - a.gzip);
const initialGzip = initial.reduce((s, f) => s + f.gzip, 0);
console.log(`initial bundle: ${(initialGzip / 1024).toFixed(1)} kB gzipped (${initial.length} files; target < ${TARGET_KB} kB)`);
for (const f of lazy) console.log(`  lazy ${f.file}: ${(f.gzip / 1024).toFixed(1)} kB gzipped`);

// --- 2. page loads -------------------------------------------------------------
const stack = await startStack({ bus: 'memory' });
let browser;
let browserVersion = 'unknown';
const results = { signIn: [], runs: [] };
try {
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS }); // a fresh temporary profile of its own
  browserVersion = browser.version();
  const user = await registerUser(stack.gatewayUrl, 'bench@example.com');
  // A few runs so the runs page has rows to draw.
  const yaml = 'id: bench\nname: Bench\nversion: "1.0"\nsteps:\n  - name: s\n    step_type: tool\n    action: transform_data\n    inputs: { data: [{ n: 1 }] }\n    operations:\n      - { type: limit, value: 1 }\n';
  for (let i = 0; i < 5; i++) await http('POST', `${stack.gatewayUrl}/api/v1/runs`, { token: user.token, body: { yaml } });

  const measure = async (path, readySelector, token) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (token) await context.addInitScript((t) => sessionStorage.setItem('af.console.token', t), token);
    const page = await context.newPage();
    await page.goto(`${stack.gatewayUrl}${path}`, { waitUntil: 'commit' });
    await page.waitForSelector(readySelector);
    const t = await page.evaluate(async () => {
      await new Promise((r) => setTimeout(r, 0));
      const nav = performance.getEntriesByType('navigation')[0];
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      return { tti: performance.now(), fcp: fcp ? fcp.startTime : NaN, dcl: nav.domContentLoadedEventEnd };
    });
    await context.close();
    return t;
  };
  await measure('/', 'form button[type=submit]'); // warm the server once
  for (let i = 0; i < LOADS; i++) {
    results.signIn.push(await measure('/', 'form button[type=submit]'));
    results.runs.push(await measure('/runs', 'table tbody tr', user.token));
  }
} finally {
  await browser?.close();
  await stack.stop();
}

const summary = (xs, k) => ({ median_ms: round(median(xs.map((x) => x[k]))), max_ms: round(Math.max(...xs.map((x) => x[k]))) });
const pages = Object.fromEntries(
  Object.entries(results).map(([name, xs]) => [name, { first_contentful_paint: summary(xs, 'fcp'), dom_content_loaded: summary(xs, 'dcl'), time_to_interactive: summary(xs, 'tti') }]),
);
for (const [name, p] of Object.entries(pages)) {
  console.log(`${name}: FCP median ${p.first_contentful_paint.median_ms} ms, DCL ${p.dom_content_loaded.median_ms} ms, TTI median ${p.time_to_interactive.median_ms} ms (max ${p.time_to_interactive.max_ms} ms)`);
}

const out = {
  benchmark: 'console',
  machine: { date: new Date().toISOString(), cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)), loadAverageAtStart: loadavg().map((x) => Number(x.toFixed(2))), node: process.version, browser: `chromium ${browserVersion}` },
  bundle: {
    target_initial_gzip_kb: TARGET_KB,
    initial_gzip_kb: round(initialGzip / 1024),
    met: initialGzip / 1024 < TARGET_KB,
    initial: initial.map((f) => ({ ...f, gzip_kb: round(f.gzip / 1024) })),
    lazy: lazy.map((f) => ({ ...f, gzip_kb: round(f.gzip / 1024) })),
  },
  page_loads: { loads: LOADS, gateway: 'startStack({ bus: "memory" })', cold_cache: true, pages },
};
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'console.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log('wrote bench/results/console.json');
