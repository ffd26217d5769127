/**
 * Shared set-up of the approval e2e tests: the real services as processes
 * (@af/testing startStack), users registered through the gateway, runs
 * started through the gateway (playbooks) or — for plan shapes no gateway
 * route compiles yet (human nodes, master plans, hand-set timeouts) — with
 * the orchestrator's StartRun as the same user, and polling helpers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { orchestrator } from '@af/contracts';
import { PlanGraphSchema, planToWire } from '@af/plan';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { http, readSse, type Stack } from '@af/testing';

export { http, readSse };

export const fixture = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', name), 'utf8');
export const ROWS = [{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: 'c' }];

export interface User {
  id: string;
  token: string;
}

export async function register(stack: Stack, email: string): Promise<User> {
  const password = 'correct horse battery staple';
  const reg = await http('POST', `${stack.gatewayUrl}/api/auth/register`, { body: { email, password } });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await http('POST', `${stack.gatewayUrl}/api/auth/login`, { body: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return { id: login.body.user.id as string, token: login.body.access_token as string };
}

/** A client of one stack: HTTP through the gateway as a user, StartRun over gRPC as that user. */
export function client(stack: Stack) {
  const runs = createGrpcClient<orchestrator.OrchestratorServiceClient>('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
  const url = (path: string) => `${stack.gatewayUrl}${path}`;
  const req = (method: string, path: string, user: User, body?: unknown, headers?: Record<string, string>) =>
    http(method, url(path), { token: user.token, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });

  return {
    url,
    req,
    async startPlaybook(user: User, yaml: string, inputs: Record<string, unknown> = { rows: ROWS }, runContext?: string): Promise<string> {
      const res = await req('POST', '/api/v1/runs', user, { playbook: yaml, inputs, ...(runContext ? { run_context: runContext } : {}) });
      if (res.status !== 201) throw new Error(`start failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.run.id as string;
    },
    async startPlan(user: User, plan: Record<string, unknown>, runContext = 'interactive', inputs: Record<string, unknown> = {}): Promise<string> {
      const { run } = await call(
        runs.startRun({
          principal: { userId: user.id, teamIds: [] },
          plan: planToWire(PlanGraphSchema.parse(plan)),
          inputs,
          idempotencyKey: '',
          runContext,
          outputContract: undefined,
          goalCondition: [],
        } as unknown as orchestrator.StartRunRequest),
      );
      return run!.id;
    },
    async run(user: User, runId: string): Promise<any> {
      const res = await req('GET', `/api/v1/runs/${runId}`, user);
      if (res.status !== 200) throw new Error(`GET run: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.run;
    },
    async waitFor(user: User, runId: string, done: (run: any) => boolean, what: string, timeoutMs = 20_000): Promise<any> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const run = await this.run(user, runId);
        if (done(run)) return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} not ${what} after ${timeoutMs} ms: ${run.status} ${JSON.stringify(run.nodes.map((n: any) => [n.node_id, n.status]))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    waitForStatus(user: User, runId: string, status: string, timeoutMs?: number) {
      return this.waitFor(user, runId, (r) => r.status === status, status, timeoutMs);
    },
    waitForEnd(user: User, runId: string, timeoutMs?: number) {
      return this.waitFor(user, runId, (r) => ['completed', 'failed', 'cancelled'].includes(r.status), 'finished', timeoutMs);
    },
    /** The run's pending request at `nodeId`, once it exists. */
    async pending(user: User, runId: string, nodeId: string, kind = 'all', timeoutMs = 20_000): Promise<any> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await req('GET', `/api/agent-factory/approvals?run_id=${runId}&kind=${kind}`, user);
        if (res.status !== 200) throw new Error(`list approvals: ${res.status} ${JSON.stringify(res.body)}`);
        const found = res.body.approvals.find((a: any) => a.node_id === nodeId);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no pending request at ${nodeId} of run ${runId}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    frames(user: User, runId: string, until: string | ((f: { event?: string; data: string }) => boolean), timeoutMs = 15_000) {
      return readSse(url(`/api/v1/runs/${runId}/events`), { authorization: `Bearer ${user.token}` }, { until: typeof until === 'string' ? (f) => f.event === until : until, timeoutMs });
    },
  };
}

export const node = (run: any, id: string) => run.nodes.find((n: any) => n.node_id === id);
