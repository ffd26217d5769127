import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { consoleStatic } from './console-static.js';

const HTML = 'text/html,application/xhtml+xml';

async function serve(dir: string) {
  const app = express();
  app.use(consoleStatic(dir));
  app.use((_req, res) => res.status(404).json({ error: { code: 'NOT_FOUND' } }));
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { get: (path: string, accept = HTML, method = 'GET') => fetch(`${base}${path}`, { method, headers: { accept } }), close: () => new Promise((r) => server.close(r)) };
}

describe('consoleStatic', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'console-static-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('serves built files, and index.html for client routes a browser asks for', async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
    const s = await serve(dir);
    try {
      const page = await s.get('/runs/42');
      expect(page.status).toBe(200);
      expect(await page.text()).toBe('<div id="root"></div>');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
      const asset = await s.get('/assets/index-abc.js', '*/*');
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      expect((await s.get('/', HTML)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('leaves the API, missing assets, non-GET requests and non-browser clients to the next handler', async () => {
    writeFileSync(join(dir, 'index.html'), '<div id="root"></div>');
    const s = await serve(dir);
    try {
      for (const [path, accept, method] of [
        ['/api/v1/runs', HTML, 'GET'],
        ['/api', HTML, 'GET'],
        ['/healthz', HTML, 'GET'],
        ['/hitl/respond', HTML, 'GET'],
        ['/query/memory', HTML, 'GET'],
        ['/assets/missing.js', HTML, 'GET'],
        ['/no/such/route', 'application/json', 'GET'],
        ['/runs', HTML, 'POST'],
      ] as const) {
        const res = await s.get(path, accept, method);
        expect([path, res.status]).toEqual([path, 404]);
      }
    } finally {
      await s.close();
    }
  });

  it('says how to build the console when it has not been built', async () => {
    const s = await serve(join(dir, 'nothing-here'));
    try {
      const res = await s.get('/');
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('pnpm build');
      expect((await s.get('/api/v1/runs')).status).toBe(404);
    } finally {
      await s.close();
    }
  });
});
