/**
 * Bounded work and sizes, through the real services: condition nesting and
 * step budget, plan size, run input/output size, long references, NUL
 * characters, deeply nested JSON, and transport errors that must not show
 * internal addresses. One shared stack; the tests that stop a service run last.
 */
import { http, registerAndLogin, startStack, waitForRun, type Stack } from './skeleton.js';

let stack: Stack;
let alice: string;
let bob: string;

/** Small enough that a 200 KB run output is refused, large enough for every ordinary node. */
const NODE_OUTPUT_MAX_BYTES = 64 * 1024;

beforeAll(async () => {
  stack = await startStack({
    env: {
      orchestrator: { NODE_OUTPUT_MAX_BYTES: String(NODE_OUTPUT_MAX_BYTES) },
      // A stopped service is answered 503/504 after 5 s instead of 15 (the transport-error tests below).
      gateway: { UPSTREAM_WAIT_MS: '5000' },
    },
  });
  alice = await registerAndLogin(stack, 'alice-limits@example.com');
  bob = await registerAndLogin(stack, 'bob-limits@example.com');
});

afterAll(async () => {
  await stack?.stop();
});

const url = (path: string) => `${stack.gatewayUrl}${path}`;

/** `some(rows as r0, some(rows as r1, … r{n-1}.v == -1))`: never true, so every combination is visited. */
function nested(n: number): string {
  let inner = `r${n - 1}.v == -1`;
  for (let k = n - 1; k >= 0; k--) inner = `some(rows as r${k}, ${inner})`;
  return inner;
}

/** One transform step guarded by `condition`, reading the `rows` input; a failure of the step fails the run. */
function conditionalPlaybook(condition: string, id = 'guarded'): string {
  return [
    `id: ${id}`,
    `name: ${id}`,
    'inputs:',
    '  - name: rows',
    '    type: list',
    '    required: true',
    'steps:',
    '  - name: pick',
    '    step_type: tool',
    '    action: transform_data',
    `    condition: "${condition}"`,
    '    on_error: stop',
    '    inputs:',
    '      data: "{rows}"',
    '    operations:',
    '      - type: limit',
    '        value: 100000',
  ].join('\n');
}

/** `steps` sequential pure transform steps. */
function chainPlaybook(steps: number): string {
  const lines = ['id: long-chain', 'name: Long chain', 'inputs:', '  - name: rows', '    type: list', '    required: true', 'steps:'];
  for (let i = 0; i < steps; i++) {
    lines.push(`  - name: s${i}`, '    step_type: tool', '    action: transform_data', '    inputs:', `      data: "${i === 0 ? '{rows}' : `{s${i - 1}.data}`}"`, '    operations:', '      - type: limit', '        value: 10');
  }
  return lines.join('\n');
}

const rows = (n: number) => Array.from({ length: n }, (_, v) => ({ v }));

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = Date.now();
  const value = await fn();
  return { ms: Date.now() - started, value };
}

describe('condition evaluation is bounded', () => {
  it('refuses five nested some() at validation and at StartRun with 400 naming the condition', async () => {
    const yaml = conditionalPlaybook(nested(5));
    const validate = await http('POST', url('/api/agent-factory/playbooks/validate'), { token: alice, body: { yaml } });
    expect(validate.status).toBe(200);
    expect(validate.body.valid).toBe(false);
    expect(validate.body.errors[0]).toMatchObject({ field: 'steps[0].condition', reason: expect.stringContaining('nests quantifiers (some/all/none) 4 deep; at most 3 may nest') });

    const start = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: yaml, inputs: { rows: rows(60) } } });
    expect(start.status).toBe(400);
    expect(start.body.error.code).toBe('INVALID_ARGUMENT');
    expect(start.body.error.violations[0]).toMatchObject({ field: 'steps[0].condition', reason: expect.stringContaining('at most 3 may nest') });
  });

  it('refuses deeply nested JSON-Logic in a runtime policy at StartRun with 400 naming the policy condition', async () => {
    let logic: unknown = { '==': [{ var: 'r4.v' }, -1] };
    for (let k = 4; k >= 0; k--) logic = { some: [{ var: 'output.data' }, logic, `r${k}`] };
    const res = await http('POST', url('/api/v1/runs'), {
      token: alice,
      body: {
        playbook: conditionalPlaybook('{rows.length} > 0', 'with-policy'),
        inputs: { rows: rows(3) },
        policies: [{ id: 'nested', trigger: { kind: 'onNodeComplete', condition: { jsonLogic: logic } }, action: { type: 'emit', event: 'x' } }],
      },
    });
    expect(res.status).toBe(400);
    const violation = res.body.error.violations.find((v: { field: string }) => v.field.startsWith('policies[0]'));
    expect(violation).toMatchObject({ field: expect.stringMatching(/^policies\[0\]\.trigger\.condition/), reason: expect.stringContaining('at most 3 may nest') });
  });

  it('fails the node of a within-limits condition that exceeds its step budget promptly, while another user stays fast', async () => {
    // 3 nested quantifiers over 1,000 rows: 10^9 combinations without a budget.
    const started = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: conditionalPlaybook(nested(3), 'budget'), inputs: { rows: rows(1_000) } } });
    expect(started.status).toBe(201);
    const runId = started.body.run.id as string;

    const latencies: number[] = [];
    const probe = (async () => {
      for (let i = 0; i < 10; i++) latencies.push((await timed(() => http('GET', url('/api/v1/runs'), { token: bob }))).ms);
    })();
    const { ms, value: run } = await timed(() => waitForRun(stack, alice, runId, 20_000));
    await probe;
    expect(run.status).toBe('failed');
    const node = run.nodes.find((n: { node_id: string }) => n.node_id === 'pick');
    expect(node.status).toBe('failed');
    expect(node.error).toContain('condition evaluation exceeded its budget of 100000 steps');
    expect(ms).toBeLessThan(10_000);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
  });

  it('still runs ordinary conditions', async () => {
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: conditionalPlaybook('some(rows as r, r.v == 2)', 'ordinary'), inputs: { rows: rows(5) } } });
    expect(res.status).toBe(201);
    const run = await waitForRun(stack, alice, res.body.run.id);
    expect(run.status).toBe('completed');
    expect(run.nodes[0].status).toBe('completed');
  });
});

describe('plan size', () => {
  it('refuses a playbook over the step cap quickly with 400 naming steps and the limit', async () => {
    const yaml = chainPlaybook(1_500);
    const { ms, value: res } = await timed(() => http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: yaml, inputs: { rows: rows(3) } } }));
    expect(res.status).toBe(400);
    expect(res.body.error.violations).toEqual([{ field: 'steps', reason: '1500 steps (parallel_steps included); the limit is 1000 (PLAN_MAX_NODES)', code: 'too_many_nodes' }]);
    expect(ms).toBeLessThan(5_000);
    const validate = await http('POST', url('/api/agent-factory/playbooks/validate'), { token: alice, body: { yaml } });
    expect(validate.body.errors).toEqual([expect.objectContaining({ field: 'steps', code: 'too_many_nodes' })]);
  });
});

describe('run sizes', () => {
  it('refuses a 1.9 MB input with 413 naming inputs, and the owner’s run list still answers 200', async () => {
    const big = { blob: 'x'.repeat(1_900_000) };
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: conditionalPlaybook('{rows.length} > 0', 'big-input'), inputs: { rows: rows(1), ...big } } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(res.body.error.violations).toEqual([{ field: 'inputs', reason: expect.stringMatching(/^is \d+ bytes of JSON; the limit is 262144 bytes \(RUN_INPUT_MAX_BYTES\)$/), code: 'payload_too_large' }]);
    const list = await http('GET', url('/api/v1/runs'), { token: alice });
    expect(list.status).toBe(200);
    const executions = await http('GET', url('/api/agent-factory/executions'), { token: alice });
    expect(executions.status).toBe(200);
  });

  it('keeps inputs out of list views', async () => {
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: conditionalPlaybook('{rows.length} > 0', 'listed'), inputs: { rows: rows(200) } } });
    expect(res.status).toBe(201);
    await waitForRun(stack, alice, res.body.run.id);
    const list = await http('GET', url('/api/v1/runs'), { token: alice });
    const row = list.body.runs.find((r: { id: string }) => r.id === res.body.run.id);
    expect(row).toBeDefined();
    expect(row.inputs).toBeUndefined();
    expect(row.nodes).toBeUndefined();
    const one = await http('GET', url(`/api/v1/runs/${res.body.run.id}`), { token: alice });
    expect(one.body.run.inputs.rows).toHaveLength(200);
  });

  it('fails a node whose output is over NODE_OUTPUT_MAX_BYTES, and the run stays readable', async () => {
    const wide = Array.from({ length: 2_000 }, (_, v) => ({ v, text: 'y'.repeat(90) }));
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: conditionalPlaybook('{rows.length} > 0', 'wide-output'), inputs: { rows: wide } } });
    expect(res.status).toBe(201);
    const run = await waitForRun(stack, alice, res.body.run.id);
    expect(run.status).toBe('failed');
    expect(run.nodes[0].status).toBe('failed');
    expect(run.nodes[0].error).toMatch(new RegExp(`^output is \\d+ bytes of JSON; the limit is ${NODE_OUTPUT_MAX_BYTES} bytes \\(NODE_OUTPUT_MAX_BYTES\\)$`));
    expect(run.nodes[0].output).toBeNull();
    expect((await http('GET', url(`/api/v1/runs/${run.id}`), { token: alice })).status).toBe(200);
    expect((await http('GET', url('/api/v1/runs'), { token: alice })).status).toBe(200);
  });
});

describe('long references and error text', () => {
  it('refuses a 25,000-segment reference quickly with 400 naming the field, and others are unaffected', async () => {
    const yaml = conditionalPlaybook('{rows.length} > 0', 'long-ref').replace('data: "{rows}"', `data: "{rows${'.a'.repeat(25_000)}}"`);
    const { ms, value: res } = await timed(() => http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: yaml, inputs: { rows: rows(1) } } }));
    expect(res.status).toBe(400);
    expect(ms).toBeLessThan(3_000);
    expect(res.body.error.violations[0]).toMatchObject({ field: 'steps[0].inputs.data', reason: expect.stringContaining('too long') });
    expect(res.body.error.message.length).toBeLessThanOrEqual(1_000);
    expect(JSON.stringify(res.body).length).toBeLessThan(5_000);
    // The gateway–planner connection is still there for everyone.
    const other = await http('POST', url('/api/agent-factory/playbooks/validate'), { token: bob, body: { yaml: conditionalPlaybook('{rows.length} > 0', 'fine') } });
    expect(other.status).toBe(200);
    expect(other.body.valid).toBe(true);
  });

  it('answers thousands of problems with at most 100 violations, the last saying how many more', async () => {
    const lines = ['id: many-errors', 'name: Many errors', 'steps:'];
    for (let i = 0; i < 900; i++) lines.push(`  - name: s${i}`, '    step_type: tool', '    action: transform_data', `    inputs: { data: "{missing${i}.x}" }`, '    operations: [{ type: limit, value: 1 }]');
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: lines.join('\n'), inputs: {} } });
    expect(res.status).toBe(400);
    // At most 100, fewer when the trailer's byte bound (16 KiB) bites first (each violation carries step, line, column).
    const violations = res.body.error.violations;
    expect(violations.length).toBeLessThanOrEqual(100);
    expect(violations.length).toBeGreaterThan(50);
    const more = /^… and (\d+) more$/.exec(violations.at(-1).reason);
    expect(more).not.toBeNull();
    expect(violations.length - 1 + Number(more![1])).toBe(900);
    expect(res.body.error.message.length).toBeLessThanOrEqual(1_000);
  });
});

describe('NUL characters and deep nesting', () => {
  it('refuses a NUL in an input with 400 naming the field', async () => {
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: conditionalPlaybook('{rows.length} > 0', 'nul'), inputs: { rows: [{ v: 1, name: 'a\u0000b' }] } } });
    expect(res.status).toBe(400);
    expect(res.body.error.violations).toEqual([{ field: 'inputs.rows[0].name', reason: 'contains a NUL character (\\u0000)', code: 'nul_character' }]);
  });

  it('refuses a NUL in a name (registration e-mail, playbook YAML), in a key and in a URL path with 400 naming the field', async () => {
    const reg = await http('POST', url('/api/auth/register'), { body: { email: 'nul\u0000@example.com', password: 'correct horse battery staple' } });
    expect(reg.status).toBe(400);
    expect(reg.body.error.violations[0]).toMatchObject({ field: 'email', code: 'nul_character' });
    const playbook = await http('POST', url('/api/agent-factory/playbooks'), { token: alice, body: { yaml: 'id: x\u0000y\nname: n\nsteps: []' } });
    expect(playbook.status).toBe(400);
    expect(playbook.body.error.violations[0]).toMatchObject({ field: 'yaml', code: 'nul_character' });
    const key = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: 'id: k', inputs: { 'bad\u0000key': 1 } } });
    expect(key.status).toBe(400);
    expect(key.body.error.violations[0]).toMatchObject({ field: expect.stringMatching(/^inputs\[/), reason: 'the key contains a NUL character (\\u0000)' });
    const path = await http('GET', url('/api/v1/runs/abc%00def'), { token: alice });
    expect(path.status).toBe(400);
    expect(path.body.error.violations[0]).toMatchObject({ field: '(path)', code: 'nul_character' });
  });

  it('refuses JSON nested 2,500 levels deep with 400 naming the limit', async () => {
    const raw = `{"playbook":"id: deep","inputs":{"a":${'['.repeat(2_500)}${']'.repeat(2_500)}}}`;
    const res = await http('POST', url('/api/v1/runs'), { token: alice, raw });
    expect(res.status).toBe(400);
    expect(res.body.error.violations[0]).toMatchObject({ code: 'too_deep', reason: 'nests deeper than 64 levels of objects and arrays', field: expect.stringMatching(/^inputs\.a\[0\]/) });
  });
});

describe('transport errors never show internal addresses', () => {
  const leaks = (body: unknown) => /127\.0\.0\.1|localhost:|ECONNREFUSED|:\d{4,5}\b/.test(JSON.stringify(body));

  it('answers a call to a stopped planner with a sentence naming the planner', async () => {
    await stack.services.planner.stop();
    try {
      const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: conditionalPlaybook('{rows.length} > 0', 'down'), inputs: { rows: rows(1) } } });
      expect([503, 504]).toContain(res.status);
      expect(res.body.error.message).toMatch(/^the planner service (is unavailable|did not answer in time); try again shortly$/);
      expect(leaks(res.body)).toBe(false);
    } finally {
      await stack.services.planner.start();
    }
  }, 60_000);

  it('answers a call to a stopped orchestrator with a sentence naming the orchestrator', async () => {
    await stack.services.orchestrator.stop();
    try {
      const res = await http('GET', url('/api/v1/runs'), { token: alice });
      expect([503, 504]).toContain(res.status);
      expect(res.body.error.message).toMatch(/^the orchestrator service (is unavailable|did not answer in time); try again shortly$/);
      expect(leaks(res.body)).toBe(false);
    } finally {
      await stack.services.orchestrator.start();
    }
  }, 60_000);
});
