/** The response check on a real Express server: what leaves is the documented answer or a 500 naming the mismatch. */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { z } from 'zod';
import type { Logger } from '@af/service-kit';
import { responseCheck } from './response-check.middleware.js';
import type { RouteDoc } from './responses/document.js';

const ROUTES: RouteDoc[] = [{ method: 'get', path: '/api/things/{id}', summary: 'one', response: z.strictObject({ id: z.string() }) }];
const logged: unknown[] = [];
const log = { error: (o: unknown) => logged.push(o) } as unknown as Logger;

let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use(responseCheck(ROUTES, log));
  app.get('/api/things/good', (_req, res) => res.json({ id: 'good' }));
  app.get('/api/things/bad', (_req, res) => res.json({ id: 7, secret: 'x' }));
  app.get('/api/things/gone', (_req, res) => res.status(404).json({ error: { code: 'NOT_FOUND', message: 'gone', violations: [] } }));
  app.get('/api/things/ugly', (_req, res) => res.status(404).json({ message: 'Not Found' }));
  app.get('/api/other', (_req, res) => res.json({ hi: 1 }));
  app.get('/api/text', (_req, res) => res.type('text').send('plain'));
  await new Promise<void>((resolve) => (server = app.listen(0, '127.0.0.1', () => resolve())));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const get = async (path: string): Promise<{ status: number; checked: string | null; body: any }> => {
  const res = await fetch(base + path);
  return { status: res.status, checked: res.headers.get('x-openapi-checked'), body: (res.headers.get('content-type') ?? '').includes('json') ? await res.json() : await res.text() };
};

it('lets a documented answer through, marked as checked', async () => {
  expect(await get('/api/things/good')).toEqual({ status: 200, checked: 'getApiThingsId', body: { id: 'good' } });
  expect(await get('/api/things/gone')).toMatchObject({ status: 404, checked: 'getApiThingsId' });
});

it('answers 500 RESPONSE_SCHEMA_MISMATCH naming the operation and the body paths, and logs it', async () => {
  logged.length = 0;
  const res = await get('/api/things/bad');
  expect(res.status).toBe(500);
  expect(res.body.error.code).toBe('RESPONSE_SCHEMA_MISMATCH');
  expect(res.body.error.message).toContain('GET /api/things/{id}');
  expect(res.body.error.message).toContain('(status 200)');
  expect(res.body.error.violations.map((v: { field: string }) => v.field)).toEqual(['id', '(body)']);
  expect(JSON.stringify(res.body)).not.toContain('"x"');
  expect(logged).toHaveLength(1);
});

it('refuses an error answer outside the envelope and a JSON answer of an undocumented route', async () => {
  expect((await get('/api/things/ugly')).body.error.violations[0].field).toBe('error');
  const other = await get('/api/other');
  expect(other.status).toBe(500);
  expect(other.body.error.violations[0].field).toBe('(route)');
});

it('leaves answers that are not JSON alone', async () => {
  expect(await get('/api/text')).toEqual({ status: 200, checked: null, body: 'plain' });
});
