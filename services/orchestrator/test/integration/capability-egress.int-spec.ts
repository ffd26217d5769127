/**
 * The egress policy on capability agent calls (infra/capability-agent.client.ts
 * with CAPABILITY_EGRESS_ALLOW): endpoints are checked when dialled — every
 * address a name resolves to — and the checked address is the one dialled.
 * Real: grpc-js, a loopback agent (test/fixtures/capability-agent.ts), the
 * system resolver for `localhost`. Faked: DNS answers for made-up names
 * (`resolve`), to script rebinding.
 */
import { AppError } from '@af/service-kit';
import { freePort } from '@af/testing';
import type { AgentCall } from '../../src/app/executors/capability.executor.js';
import { CapabilityAgentClients, type CapabilityAgentOptions, type ResolveHost } from '../../src/infra/capability-agent.client.js';
import { copywriter, startTestAgent, type TestAgent } from '../fixtures/capability-agent.js';

const ALICE = '8f14e45f-ceea-467f-a0e6-9b3c1f2a7d10';
const BOB = '1c2d3e4f-0000-4000-8000-00000000b0b0';

let agent: TestAgent;
const opened: CapabilityAgentClients[] = [];

beforeAll(async () => {
  agent = await startTestAgent(copywriter);
});

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await agent?.stop();
});

function clients(options: CapabilityAgentOptions): CapabilityAgentClients {
  const c = new CapabilityAgentClients(options);
  opened.push(c);
  return c;
}

const request = (over: Partial<AgentCall> = {}): AgentCall => ({
  capabilityId: 'writer.en',
  instanceId: 'default',
  runId: 'run-1',
  nodeId: 'write',
  attempt: 1,
  idempotencyKey: `run-1:write:${Math.random().toString(36).slice(2)}`,
  inputs: { company_information: { name: 'CompanyX' }, post_context: { type: 'new_case', data: { customer_name: 'Acme', content_description: 'Acme saved 32%.' } } },
  instruction: 'Write the post.',
  inputSchema: {},
  outputSchema: {},
  timeoutMs: 5000,
  clarifications: [],
  principal: { userId: ALICE, teamIds: [] },
  inputFacets: [],
  outputFacets: [],
  scope: '',
  allowClarify: false,
  ...over,
});

const live = () => new AbortController().signal;

/** Answers from a table; counts the lookups. */
function scriptedDns(answers: Record<string, string[][]>): ResolveHost & { lookups: string[] } {
  const lookups: string[] = [];
  const resolve = async (hostname: string) => {
    lookups.push(hostname);
    const queue = answers[hostname];
    const next = queue && (queue.length > 1 ? queue.shift()! : queue[0]);
    if (!next) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { lookups });
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

describe('capability endpoints under CAPABILITY_EGRESS_ALLOW', () => {
  it('refuses a loopback agent by default: FAILED_PRECONDITION naming the endpoint and the variable, nothing sent', async () => {
    const before = agent.calls.length;
    const err = await failure(clients({}).invoke(agent.address, request(), { timeoutMs: 5000, signal: live() }));
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false });
    expect(err.message).toBe(
      `capability endpoint ${agent.address}: egress to ${agent.address} refused: 127.0.0.1 is a loopback address; an operator can allow it with CAPABILITY_EGRESS_ALLOW`,
    );
    expect(agent.calls.length).toBe(before);
  });

  it('refuses cloud metadata even when a range covers it, and unix sockets whatever the list says', async () => {
    const c = clients({ allow: '169.254.0.0/16,127.0.0.1' });
    const meta = await failure(c.invoke('169.254.169.254:80', request(), { timeoutMs: 2000, signal: live() }));
    expect(meta).toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false });
    expect(meta.message).toContain('egress to 169.254.169.254:80 refused: 169.254.169.254 is a cloud metadata address');
    for (const endpoint of ['unix:/tmp/agent.sock', 'unix-abstract:agent', 'ipv4:127.0.0.1:1,127.0.0.1:2']) {
      const err = await failure(c.invoke(endpoint, request(), { timeoutMs: 2000, signal: live() }));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toMatch(new RegExp(`^capability endpoint ${endpoint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the endpoint is not allowed: `));
    }
  });

  it('refuses a name that resolves to loopback (the real resolver: localhost)', async () => {
    const before = agent.calls.length;
    const err = await failure(clients({ allow: '10.0.0.0/8' }).invoke(`localhost:${agent.port}`, request(), { timeoutMs: 5000, signal: live() }));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toMatch(new RegExp(`^capability endpoint localhost:${agent.port}: egress to localhost:${agent.port} refused: localhost resolves to (127\\.0\\.0\\.1|::1), a loopback address; an operator can allow it with CAPABILITY_EGRESS_ALLOW$`));
    expect(agent.calls.length).toBe(before);
  });

  it('refuses a name when ANY of its addresses is forbidden', async () => {
    const dns = scriptedDns({ 'mixed.test': [['93.184.216.34', '169.254.169.254']] });
    const err = await failure(clients({ allow: '', resolve: dns }).invoke('mixed.test:50070', request(), { timeoutMs: 2000, signal: live() }));
    expect(err.message).toContain('mixed.test resolves to 169.254.169.254, a cloud metadata address');
  });

  it('dials an allowed agent at the address it checked (a name the system resolver does not know still works)', async () => {
    const dns = scriptedDns({ 'agent.test': [['127.0.0.1']] });
    const c = clients({ allow: `127.0.0.1:${agent.port}`, resolve: dns });
    const answer = await c.invoke(`agent.test:${agent.port}`, request(), { timeoutMs: 5000, signal: live() });
    expect(answer.output).toEqual({ post_copy: 'CompanyX is proud of Acme: Acme saved 32%.' });
    expect(dns.lookups).toEqual(['agent.test']);
    // A literal is dialled as it is, allowed by the same entry.
    expect((await c.invoke(agent.address, request(), { timeoutMs: 5000, signal: live() })).output).toBeTruthy();
  });

  it('checks again on every call: a name rebound to a forbidden address is refused, nothing sent', async () => {
    const dns = scriptedDns({ 'rebind.test': [['127.0.0.1'], ['169.254.169.254']] });
    const c = clients({ allow: `127.0.0.1:${agent.port}`, resolve: dns });
    expect((await c.invoke(`rebind.test:${agent.port}`, request(), { timeoutMs: 5000, signal: live() })).output).toBeTruthy();
    const before = agent.calls.length;
    const err = await failure(c.invoke(`rebind.test:${agent.port}`, request(), { timeoutMs: 5000, signal: live() }));
    expect(err.message).toContain(`rebind.test resolves to 169.254.169.254, a cloud metadata address`);
    expect(agent.calls.length).toBe(before);
  });

  it("an owner-scoped entry opens the endpoint for that owner's capability only", async () => {
    const c = clients({ allow: `${ALICE}/writer.en=127.0.0.1:${agent.port}` });
    expect((await c.invoke(agent.address, request(), { timeoutMs: 5000, signal: live() })).output).toBeTruthy();
    const bobs = await failure(c.invoke(agent.address, request({ principal: { userId: BOB, teamIds: [] } }), { timeoutMs: 5000, signal: live() }));
    expect(bobs.code).toBe('FAILED_PRECONDITION');
    const other = await failure(c.invoke(agent.address, request({ capabilityId: 'writer.de' }), { timeoutMs: 5000, signal: live() }));
    expect(other.code).toBe('FAILED_PRECONDITION');
  });

  it('a name that does not resolve is UNAVAILABLE (retryable: the next instance may serve)', async () => {
    const err = await failure(clients({ allow: '', resolve: scriptedDns({}) }).invoke('gone.test:50070', request(), { timeoutMs: 2000, signal: live() }));
    expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true, message: 'could not resolve gone.test: ENOTFOUND' });
  });

  it('a closed allowed port is still UNAVAILABLE, as before', async () => {
    const port = await freePort();
    const err = await failure(clients({ allow: '127.0.0.1' }).invoke(`127.0.0.1:${port}`, request(), { timeoutMs: 2000, signal: live() }));
    expect(err.code).toBe('UNAVAILABLE');
  });

  it('an invalid list fails at construction naming the variable; the old id=… form names the new one', () => {
    expect(() => new CapabilityAgentClients({ allow: 'writer.en=10.0.0.7:50070' })).toThrow(
      'CAPABILITY_EGRESS_ALLOW: entry 1 ("writer.en=10.0.0.7:50070"): "writer.en=…" would open to every user who names a capability "writer.en": name the owner too, as <owner-user-id>/writer.en=10.0.0.7:50070',
    );
  });
});
