/**
 * The console (packages/console, a single-page app) at `/`: its built files
 * from CONSOLE_DIR, and index.html for every other page a browser asks for
 * (a GET accepting text/html) outside the API, so the app's own routes
 * (/runs/…, /inbox) load on a reload. `/api`, `/hitl`, `/query` and `/healthz` are never
 * touched, and API clients still get the JSON 404 for unknown paths. When the
 * console has not been built, such a page answers 503 with how to build it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';

const HERE = dirname(fileURLToPath(import.meta.url));
/**
 * Where the console is when CONSOLE_DIR is unset: `console/` beside the
 * gateway's `dist/` in the container image (deploy/Dockerfile copies it
 * there), else packages/console/dist of this checkout
 * (services/gateway/dist/http → ../../../../packages/console/dist).
 */
export const DEFAULT_CONSOLE_DIR = [join(HERE, '..', '..', 'console'), join(HERE, '..', '..', '..', '..', 'packages', 'console', 'dist')].find((d) =>
  existsSync(join(d, 'index.html')),
) ?? join(HERE, '..', '..', '..', '..', 'packages', 'console', 'dist');

/** Scripts, styles and API calls only from this origin; nothing framed. */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'";

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><main><h1>The console is not built</h1>
<p>Build it with <code>pnpm build</code> (or <code>pnpm --filter @af/console build</code>) at the repository root, then reload.
The API is at <a href="/api/docs">/api/docs</a>.</p></main></body></html>`;

const isApi = (path: string) => path === '/api' || path.startsWith('/api/') || path === '/healthz' || path.startsWith('/hitl/') || path === '/hitl' || path === '/query' || path.startsWith('/query/');

export function consoleStatic(dir: string) {
  const files = express.static(dir, {
    index: false,
    fallthrough: true,
    setHeaders: (res, path) => {
      // Vite names assets by content hash: cache them for good; everything else is checked each time.
      res.setHeader('Cache-Control', path.includes(`${join(dir, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
      res.setHeader('Content-Security-Policy', CSP);
    },
  });
  let index: Buffer | null = null;
  return (req: Request, res: Response, next: NextFunction): void => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isApi(req.path)) return next();
    files(req, res, () => {
      // A missing asset is a 404, not the app.
      if (req.path.startsWith('/assets/') || /\.[a-z0-9]+$/i.test(req.path) || !String(req.headers.accept ?? '').includes('text/html')) return next();
      const indexPath = join(dir, 'index.html');
      if (!index && existsSync(indexPath)) index = readFileSync(indexPath);
      if (!index) {
        res.status(503).type('html').setHeader('Cache-Control', 'no-store').send(NOT_BUILT);
        return;
      }
      res.status(200).type('html').setHeader('Cache-Control', 'no-cache').setHeader('Content-Security-Policy', CSP).send(index);
    });
  };
}
