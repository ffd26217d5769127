/**
 * Everything in examples/ runs, so the examples cannot rot: the demo-api
 * connector is saved pointing at a fixture server that answers exactly as
 * the demo data API of `pnpm start` (scripts/demo-api.mjs demoResponse);
 * every playbook of examples/playbooks validates and runs to `complete`
 * with its inputs' defaults (approvals approved); every body of
 * examples/workflow-steps starts a run that completes. Each example's real
 * outputs are checked. And docs/playbooks.md's "runs by default" column is
 * what this stack — configured as `pnpm start` is — answers at
 * GET /api/agent-factory/actions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, registerUser } from '@af/testing';
import { demoResponse } from '../../../../scripts/demo-api.mjs';
import { http, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';

const EXAMPLES = join(REPO_ROOT, 'examples');
const files = (dir: string, suffix: string) =>
  readdirSync(join(EXAMPLES, dir))
    .filter((f) => f.endsWith(suffix))
    .sort();

let api: FixtureServer;
let stack: Stack;
let token: string;
const url = (path: string) => `${stack.gatewayUrl}${path}`;

beforeAll(async () => {
  api = await startFixtureServer();
  for (const path of ['/orgs', '/filings', '/health']) api.route('GET', path, (req) => demoResponse('GET', req.path, req.query));
  // Every service a default deployment runs (k8s/base/config.yaml ACTION_SERVICES): the docs' 'runs by default' column is checked against it.
  stack = await startStack({ outputRouter: true, entityResolution: true });
  token = (await registerUser(stack.gatewayUrl, 'examples@example.com')).token;
});

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

/** Polls GET /runs/:id until the run ends, approving each approval it waits on. */
async function finish(runId: string): Promise<any> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { body } = await http('GET', url(`/api/v1/runs/${runId}`), { token });
    const run = body.run;
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
    const waiting = run.nodes.find((n: any) => n.status === 'waiting');
    if (run.status === 'waiting' && waiting) {
      const res = await http('POST', url(`/api/v1/runs/${runId}/resume`), { token, body: { decision: 'approve', node_id: waiting.node_id } });
      expect(res.status).toBe(200);
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status}: ${JSON.stringify(run.nodes)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const years = (records: any[]) => records.map((r) => r.year);

/** What each example must produce; an example without an entry fails the test, so a new one gets checked too. */
const PLAYBOOK_OUTPUTS: Record<string, (outputs: any) => void> = {
  'org-report.playbook.yaml': (o) => {
    expect(o.find_org.results).toEqual([{ id: 'org-1', name: 'Acme Community Trust', city: 'Springfield', founded: 1987 }]);
    expect(years(o.filings.results)).toEqual([2023, 2022, 2021]);
    // min_revenue's default (1,000,000) drops 2021.
    expect(o.big_years).toEqual({ count: 2, data: [expect.objectContaining({ year: 2023, revenue: 1480000 }), expect.objectContaining({ year: 2022, revenue: 1250000 })] });
  },
  'compare-orgs.playbook.yaml': (o) => {
    expect(o.first_orgs.results.map((r: any) => r.name)).toEqual(['Acme Community Trust', 'Acme Arts Foundation']);
    expect(o.second_orgs.results.map((r: any) => r.name)).toEqual(['Riverside Food Bank']);
    expect(years(o.first_filings.results)).toEqual([2023, 2022, 2021]);
    expect(o.second_filings.results[0]).toEqual({ year: 2023, revenue: 2310000, expenses: 2250000 });
  },
};

const WORKFLOW_OUTPUTS: Record<string, (outputs: any, run: any) => void> = {
  'triage-emails.json': (o, run) => {
    expect(o.any_urgent).toEqual({ result: true });
    expect(o.page).toEqual([
      { to: 'ceo@example.com', subject: 'Board meeting moved' },
      { to: 'ops@example.com', subject: 'Disk almost full' },
    ]);
    expect(o.total).toBe(3);
    expect(run.nodes.find((n: any) => n.node_id === 'digest')).toMatchObject({ status: 'skipped', skip_reason: 'condition_false' });
  },
};

describe('examples/', () => {
  it('saves the demo-api connector (its base_url pointed at the demo API)', async () => {
    const [file, ...others] = files('connectors', '.connector.yaml');
    expect(file).toBe('demo-api.connector.yaml');
    expect(others).toEqual([]);
    const yaml = readFileSync(join(EXAMPLES, 'connectors', file!), 'utf8');
    expect(yaml).toContain('base_url: http://127.0.0.1:8090');
    const res = await http('POST', url('/api/agent-factory/connectors'), { token, body: { yaml: yaml.replace('http://127.0.0.1:8090', api.url) } });
    expect(res.status).toBe(201);
    expect(res.body.connector.id).toBe('demo-api');
  });

  it('the demo API answers deterministically, refusing what it does not know', async () => {
    const get = async (path: string) => {
      const res = await fetch(`${api.url}${path}`);
      return { status: res.status, body: await res.json() };
    };
    expect(await get('/orgs?q=ACME')).toEqual({ status: 200, body: { total: 2, items: [expect.objectContaining({ id: 'org-1' }), expect.objectContaining({ id: 'org-2' })] } });
    expect(await get('/orgs?q=nobody')).toEqual({ status: 200, body: { total: 0, items: [] } });
    expect(await get('/orgs')).toEqual({ status: 400, body: { error: 'query parameter q is required' } });
    expect(await get('/filings?org_id=org-9')).toEqual({ status: 404, body: { error: "no organisation 'org-9'" } });
    expect(await get('/filings')).toEqual({ status: 400, body: { error: 'query parameter org_id is required' } });
  });

  it.each(files('playbooks', '.playbook.yaml'))('playbook %s validates and runs to complete with real outputs', async (file) => {
    const check = PLAYBOOK_OUTPUTS[file];
    if (!check) throw new Error(`examples/playbooks/${file} has no expected outputs in examples.e2e-spec.ts: add them`);
    const yaml = readFileSync(join(EXAMPLES, 'playbooks', file), 'utf8');
    const valid = await http('POST', url('/api/agent-factory/playbooks/validate'), { token, body: { yaml } });
    expect(valid.status).toBe(200);
    expect({ valid: valid.body.valid, errors: valid.body.errors, warnings: valid.body.warnings }).toEqual({ valid: true, errors: [], warnings: [] });
    const before = api.requests.length;
    const started = await http('POST', url('/api/v1/runs'), { token, body: { yaml } });
    expect(started.status).toBe(201);
    const run = await finish(started.body.run.id);
    expect({ status: run.status, task_status: run.task_status, error: run.error }).toEqual({ status: 'completed', task_status: 'complete', error: null });
    expect(run.nodes.every((n: any) => n.status === 'completed')).toBe(true);
    check(run.outputs);
    // The connector really called the API.
    expect(api.requests.length).toBeGreaterThan(before);
  });

  it.each(files('workflow-steps', '.json'))('workflow_steps %s runs to complete with real outputs', async (file) => {
    const check = WORKFLOW_OUTPUTS[file];
    if (!check) throw new Error(`examples/workflow-steps/${file} has no expected outputs in examples.e2e-spec.ts: add them`);
    const body = JSON.parse(readFileSync(join(EXAMPLES, 'workflow-steps', file), 'utf8'));
    const started = await http('POST', url('/api/v1/runs'), { token, body });
    expect(started.status).toBe(201);
    const run = await finish(started.body.run.id);
    expect({ status: run.status, task_status: run.task_status, error: run.error }).toEqual({ status: 'completed', task_status: 'complete', error: null });
    check(run.outputs, run);
  });

  it("docs/playbooks.md's 'runs by default' column is what a default stack answers at GET /api/agent-factory/actions", async () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'playbooks.md'), 'utf8');
    const documented = new Map<string, boolean>();
    for (const m of doc.matchAll(/^\| \[`([a-z_]+)`\]\(#[a-z_]+\) \|(?:[^|]*\|){3} (yes|no) \|/gm)) documented.set(m[1]!, m[2] === 'yes');
    const res = await http('GET', url('/api/agent-factory/actions'), { token });
    expect(res.status).toBe(200);
    const live = new Map<string, boolean>(res.body.actions.filter((a: any) => !String(a.category).startsWith('plugin:')).map((a: any) => [a.name, a.available]));
    expect(live.size).toBeGreaterThan(0);
    const differ = [...new Set([...documented.keys(), ...live.keys()])].filter((name) => documented.get(name) !== live.get(name));
    if (differ.length > 0) {
      const says = (m: Map<string, boolean>, n: string) => (m.has(n) ? (m.get(n) ? 'yes' : 'no') : 'absent');
      throw new Error(
        `docs/playbooks.md and this stack disagree on which actions run by default: ${differ.map((n) => `${n} (docs: ${says(documented, n)}, stack: ${says(live, n)})`).join(', ')}. ` +
          'Give k8s/base/config.yaml the ACTION_SERVICES this stack has (or adjust NOT_SERVED_YET in packages/plan/src/docs/playbook-reference.ts), then run `pnpm docs:gen`.',
      );
    }
  });
});
