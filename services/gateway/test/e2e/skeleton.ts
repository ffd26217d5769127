/** Shared set-up of the walking-skeleton e2e tests: fixture API, stack, users. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { http, startFixtureServer, startStack, type FixtureServer, type Stack } from '@af/testing';

export const SECRET = `sk-live-${'S3CR3T'}-${Math.random().toString(36).slice(2, 12)}`;

export const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', name), 'utf8');

export function connectorYaml(baseUrl: string): string {
  return fixture('fixture-api.connector.yaml').replace('{{BASE_URL}}', baseUrl);
}

export function routeFixtureApi(api: FixtureServer): void {
  api.route('GET', '/orgs', (req) => ({
    json: { data: { items: [{ id: `ein-${String(req.query.q).toLowerCase()}`, org: { name: `${req.query.q} Foundation` } }] } },
  }));
  api.route('GET', '/filings', (req) => req.query.ein === 'ein-broken' ? { status: 500, json: { error: 'upstream exploded' } } : ({
    json: { filings: [{ year: 2022, amount: { total: 1200 } }, { year: 2023, amount: { total: 3400 }, ein: req.query.ein }] },
  }));
}

export async function registerAndLogin(stack: Stack, email: string): Promise<string> {
  const password = 'correct horse battery staple';
  const reg = await http('POST', `${stack.gatewayUrl}/api/auth/register`, { body: { email, password } });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await http('POST', `${stack.gatewayUrl}/api/auth/login`, { body: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return login.body.access_token as string;
}

/** Poll GET /runs/:id until the run is finished. */
export async function waitForRun(stack: Stack, token: string, runId: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http('GET', `${stack.gatewayUrl}/api/v1/runs/${runId}`, { token });
    if (res.status !== 200) throw new Error(`GET run: ${res.status} ${JSON.stringify(res.body)}`);
    if (['completed', 'failed', 'cancelled'].includes(res.body.run.status)) return res.body.run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.run.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export { http, startFixtureServer, startStack };
export type { FixtureServer, Stack };
