/**
 * CORS_ORIGINS through the real gateway: a listed origin gets its own origin
 * back (with Vary: Origin) on plain requests, error answers and SSE routes,
 * and its preflights answer 204 with the allowed methods and headers; any
 * other origin gets no CORS headers at all.
 */
import { http, registerAndLogin, startStack, type Stack } from './skeleton.js';

const APP = 'https://app.example.com';
const DEV = 'http://localhost:5173';

let stack: Stack;
let token: string;

beforeAll(async () => {
  stack = await startStack({ env: { gateway: { CORS_ORIGINS: `${APP}, ${DEV}` } } });
  token = await registerAndLogin(stack, 'alice-cors@example.com');
});

afterAll(async () => {
  await stack?.stop();
});

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const list = (h: string | null) => (h ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);

function preflight(path: string, origin: string, method: string, headers: string) {
  return http('OPTIONS', url(path), { headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });
}

it('answers a listed origin with that origin and Vary: Origin, on public and authenticated routes', async () => {
  const health = await http('GET', url('/healthz'), { headers: { origin: APP } });
  expect(health.status).toBe(200);
  expect(health.headers.get('access-control-allow-origin')).toBe(APP);
  expect(list(health.headers.get('vary'))).toContain('origin');
  expect(health.headers.get('access-control-allow-credentials')).toBeNull();

  const runs = await http('GET', url('/api/v1/runs'), { token, headers: { origin: DEV } });
  expect(runs.status).toBe(200);
  expect(runs.headers.get('access-control-allow-origin')).toBe(DEV);
  expect(list(runs.headers.get('access-control-expose-headers'))).toEqual(expect.arrayContaining(['retry-after', 'deprecation', 'link', 'warning']));

  // Error answers carry the headers too, so the app can read the error body.
  const unauth = await http('GET', url('/api/v1/runs'), { headers: { origin: APP } });
  expect(unauth.status).toBe(401);
  expect(unauth.headers.get('access-control-allow-origin')).toBe(APP);
});

it('answers a preflight from a listed origin with 204, the methods, headers and a max-age', async () => {
  const res = await preflight('/api/v1/runs', APP, 'POST', 'authorization,content-type,idempotency-key');
  expect(res.status).toBe(204);
  expect(res.headers.get('access-control-allow-origin')).toBe(APP);
  expect(list(res.headers.get('access-control-allow-methods'))).toEqual(expect.arrayContaining(['get', 'post', 'put', 'patch', 'delete']));
  expect(list(res.headers.get('access-control-allow-headers'))).toEqual(
    expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'last-event-id', 'x-api-key']),
  );
  expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  expect(res.headers.get('access-control-allow-credentials')).toBeNull();
});

it('gives the SSE run stream the same headers', async () => {
  const pre = await preflight('/api/v1/runs/00000000-0000-4000-8000-000000000000/events', DEV, 'GET', 'authorization,last-event-id');
  expect(pre.status).toBe(204);
  expect(pre.headers.get('access-control-allow-origin')).toBe(DEV);
  expect(list(pre.headers.get('access-control-allow-headers'))).toContain('last-event-id');

  const stream = await http('GET', url('/api/v1/runs/00000000-0000-4000-8000-000000000000/events'), { token, headers: { origin: DEV } });
  expect(stream.status).toBe(404);
  expect(stream.headers.get('access-control-allow-origin')).toBe(DEV);
});

it('gives an unlisted origin no CORS headers, and its preflight no allow headers', async () => {
  for (const origin of ['https://evil.example.com', 'https://app.example.com.evil.example', 'http://app.example.com']) {
    const res = await http('GET', url('/api/v1/runs'), { token, headers: { origin } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-expose-headers')).toBeNull();

    const pre = await preflight('/api/v1/runs', origin, 'POST', 'authorization,content-type');
    expect(pre.status).not.toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
    expect(pre.headers.get('access-control-allow-methods')).toBeNull();
    expect(pre.headers.get('access-control-allow-headers')).toBeNull();
  }
});
