/**
 * Validation that catches what will fail, through the real processes
 * (gateway → planner → connector-runtime, gateway → orchestrator; one stack,
 * no LLM configured):
 *
 * - POST /api/agent-factory/playbooks/validate reports schema and reference
 *   errors of one document together, each with line, column and a
 *   suggestedFix that is the whole corrected value; a YAML syntax error
 *   quotes its line;
 * - the connectors, endpoints and bindings a playbook names are checked
 *   against the caller's (another user's connector is unknown), at validate
 *   and at POST /api/v1/runs;
 * - an llm_task step is a warning at validate and a 409 naming the step at
 *   run start;
 * - run inputs are type-checked against the playbook's `inputs`: a 400
 *   naming `inputs.<name>`, unknown inputs refused.
 */
import { http, registerAndLogin, routeFixtureApi, startFixtureServer, startStack, waitForRun, connectorYaml, type FixtureServer, type Stack } from './skeleton.js';
import { createProfile } from './profile-fixtures.js';

let api: FixtureServer;
let stack: Stack;
let alice: string;
let bob: string;
/** Alice's agent profile the connector is bound to. */
let researcher: string;

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const validate = (token: string, yaml: string) => http('POST', url('/api/agent-factory/playbooks/validate'), { token, body: { yaml } });
const startRun = (token: string, playbook: string, inputs: Record<string, unknown> = {}) => http('POST', url('/api/v1/runs'), { token, body: { playbook, inputs } });

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  stack = await startStack({ env: { 'connector-runtime': { CONNECTOR_EGRESS_ALLOW: `127.0.0.1:${api.port}` } } });
  alice = await registerAndLogin(stack, 'validation-alice@example.com');
  bob = await registerAndLogin(stack, 'validation-bob@example.com');
  const created = await http('POST', url('/api/agent-factory/connectors'), { token: alice, body: { yaml: connectorYaml(api.url), credentials: { api_key: 'k-1' } } });
  expect(created.status).toBe(201);
  researcher = await createProfile(stack, alice, 'researcher');
  const bound = await http('PUT', url(`/api/agent-factory/connectors/fixture-api/bindings/${researcher}`), { token: alice, body: { allowed_endpoints: ['search_orgs'] } });
  expect(bound.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

const EVERYTHING_WRONG = `id: all-wrong
name: Everything wrong at once
inputs:
  - { name: topic, type: string, required: true }
steps:
  - name: filings
    step_type: tool
    action: serch_web
    inputs:
      query: "{topik}"
  - name: page
    step_type: tool
    action: crawl_url
    ouput_key: pages
    inputs:
      url: "https://example.org"
  - name: report
    step_type: tool
    action: search_web
    inputs:
      query: "{filngs.results} {pages.titel}"
  - name: confirm
    step_type: aproval
    prompt: "Go?"
`;

describe('POST /api/agent-factory/playbooks/validate: one round', () => {
  it('reports schema and reference errors together, each with line, column and a whole-value fix', async () => {
    const res = await validate(alice, EVERYTHING_WRONG);
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.errors.map((e: any) => [e.code, e.field, e.line, e.column, e.suggestedFix])).toEqual([
      ['unresolved_reference', 'steps[0].action', 8, 13, 'search_web'],
      ['unresolved_reference', 'steps[0].inputs.query', 10, 14, '{topic}'],
      ['unknown_field', 'steps[1].ouput_key', 14, 16, 'output_key'],
      ['nonexistent_step', 'steps[2].inputs.query', 21, 14, '{filings.results} {pages.titel}'],
      ['unresolved_reference', 'steps[2].inputs.query', 21, 14, '{filngs.results} {pages.title}'],
      ['invalid_field', 'steps[3].step_type', 23, 16, 'approval'],
    ]);
    expect(res.body.errors[5].reason).toContain("did you mean 'approval'?");
    expect(res.body.errors[0].step).toBe('filings');
    // Per-step results carry the positions too.
    const report = res.body.results.find((r: any) => r.step === 'report');
    expect(report.errors.map((e: any) => [e.field, e.line, e.column])).toEqual([
      ['inputs.query', 21, 14],
      ['inputs.query', 21, 14],
    ]);
  });

  it('a YAML syntax error quotes the offending line with a caret', async () => {
    const res = await validate(alice, 'id: p\nname: P\nsteps:\n  - name: [unclosed\n    step_type: tool\n');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, errors: [{ code: 'invalid_yaml', line: 5, column: 5 }] });
    expect(res.body.errors[0].reason.split('\n').slice(1)).toEqual(['5 |     step_type: tool', '  |     ^']);
  });

  it('an action no service of this deployment serves is an error of the same round, with step and position', async () => {
    const res = await validate(alice, 'id: web\nname: Web\nsteps:\n  - name: look\n    step_type: tool\n    action: search_documents\n    inputs: { query: x }\n');
    expect(res.body.valid).toBe(false);
    expect(res.body.errors).toEqual([expect.objectContaining({ code: 'action_unavailable', field: 'steps[0].action', step: 'look', line: 6, column: 13 })]);
  });

  it('a valid playbook: valid, no errors', async () => {
    const res = await validate(alice, 'id: ok\nname: OK\nsteps:\n  - { name: s, step_type: tool, action: transform_data, inputs: { data: [{ n: 1 }] }, operations: [{ type: limit, value: 1 }] }\n');
    expect(res.body).toMatchObject({ valid: true, errors: [], warnings: [] });
  });
});

const connectorPlaybook = (connector: string, endpoint: string, profile?: string) => `id: pull
name: Pull
steps:
  - name: orgs
    step_type: tool
    action: call_connector
    connector: ${connector}
    endpoint: ${endpoint}
    inputs: { ${endpoint === 'get_filings' ? 'ein' : 'q'}: acme }
${profile ? `    params: { agent_profile_id: ${profile} }\n` : ''}`;

describe('connectors and endpoints are checked for the caller', () => {
  it('an unknown connector and an unknown endpoint name the step, with line and the nearest name', async () => {
    const connector = await validate(alice, connectorPlaybook('fixture-apii', 'search_orgs'));
    expect(connector.body.errors).toEqual([
      expect.objectContaining({ code: 'unknown_connector', field: 'steps[0].connector', step: 'orgs', line: 7, suggestedFix: 'fixture-api' }),
    ]);
    const endpoint = await validate(alice, connectorPlaybook('fixture-api', 'search_org'));
    expect(endpoint.body.errors).toEqual([expect.objectContaining({ code: 'unknown_endpoint', field: 'steps[0].endpoint', step: 'orgs', line: 8, suggestedFix: 'search_orgs' })]);
    expect((await validate(alice, connectorPlaybook('fixture-api', 'search_orgs'))).body).toMatchObject({ valid: true, errors: [] });
  });

  it("another user's connector is unknown to the caller", async () => {
    const res = await validate(bob, connectorPlaybook('fixture-api', 'search_orgs'));
    expect(res.body.errors).toEqual([expect.objectContaining({ code: 'unknown_connector', step: 'orgs', reason: expect.stringContaining('you have no connectors yet') })]);
  });

  it('through an agent profile: unbound, and an endpoint the binding does not allow', async () => {
    const unbound = await validate(alice, connectorPlaybook('fixture-api', 'search_orgs', 'nobody'));
    expect(unbound.body.errors).toEqual([expect.objectContaining({ code: 'connector_not_bound', field: 'steps[0].connector', step: 'orgs' })]);
    const notAllowed = await validate(alice, connectorPlaybook('fixture-api', 'get_filings', researcher));
    expect(notAllowed.body.errors).toEqual([expect.objectContaining({ code: 'endpoint_not_allowed', field: 'steps[0].endpoint', step: 'orgs', line: 8, reason: expect.stringContaining('may call only search_orgs') })]);
    expect((await validate(alice, connectorPlaybook('fixture-api', 'search_orgs', researcher))).body.valid).toBe(true);
  });

  it('POST /api/v1/runs refuses an unknown connector with a 400 naming the step and its line', async () => {
    const res = await startRun(alice, connectorPlaybook('fixture-apii', 'search_orgs'));
    expect(res.status).toBe(400);
    expect(res.body.error.violations).toEqual([expect.objectContaining({ code: 'unknown_connector', field: 'steps[0].connector', step: 'orgs', line: 7, column: 16, suggestedFix: 'fixture-api' })]);
    const ok = await startRun(alice, connectorPlaybook('fixture-api', 'search_orgs'));
    expect(ok.status).toBe(201);
    expect((await waitForRun(stack, alice, ok.body.run.id)).status).toBe('completed');
  });
});

const LLM_PLAYBOOK = `id: think
name: Think
steps:
  - { name: find, step_type: tool, action: transform_data, inputs: { data: [{ n: 1 }] }, operations: [{ type: limit, value: 1 }] }
  - name: summarise
    step_type: llm_task
    action: llm_analyze
    inputs: { data: "{find.data}" }
    output_schema: { fields: [{ name: text, type: string }] }
`;

describe('an llm_task step with no model configured', () => {
  it('is a warning at validate, naming the step and where it is', async () => {
    const res = await validate(alice, LLM_PLAYBOOK);
    expect(res.body.valid).toBe(true);
    expect(res.body.warnings).toEqual([expect.objectContaining({ code: 'no_model_configured', step: 'summarise', field: 'steps[1].action', line: 7, reason: expect.stringContaining('LLM_PROVIDER') })]);
  });

  it('is refused at run start with a 409 naming the step and how to configure a model', async () => {
    const res = await startRun(alice, LLM_PLAYBOOK);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('FAILED_PRECONDITION');
    expect(res.body.error.message).toContain("step 'summarise' is an llm_task step, but no LLM model is configured");
    expect(res.body.error.message).toContain('LLM_PROVIDER');
    expect(res.body.error.violations).toEqual([expect.objectContaining({ field: 'plan.nodes.summarise', code: 'no_model_configured', step: 'summarise' })]);
  });
});

const TYPED = `id: typed
name: Typed inputs
inputs:
  - { name: org, type: entity_name, required: true }
  - { name: limit, type: number, default: 5 }
  - { name: depth, type: string, enum: [quick, deep], default: quick }
steps:
  - name: orgs
    step_type: tool
    action: call_connector
    connector: fixture-api
    endpoint: search_orgs
    inputs: { q: "{org}" }
`;

describe('run inputs are type-checked against the playbook inputs', () => {
  it.each([
    [{ org: 'Acme', limit: 'five' }, 'inputs.limit', 'must be a number, not the string "five"', 'invalid_type'],
    [{ org: 42 }, 'inputs.org', 'must be a string (an entity name), not a number', 'invalid_type'],
    [{ org: 'Acme', depth: 'deeep' }, 'inputs.depth', 'must be one of "quick", "deep", not "deeep"', 'invalid_enum'],
    [{ org: 'Acme', orgg: 'x' }, 'inputs.orgg', "is not an input of this playbook (its inputs: org, limit, depth); did you mean 'org'?", 'unknown_input'],
    [{}, 'inputs.org', 'is required (a string (an entity name))', 'missing_required'],
  ])('%j → 400 naming %s', async (inputs, field, reason, code) => {
    const res = await startRun(alice, TYPED, inputs);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_ARGUMENT');
    expect(res.body.error.violations).toEqual([expect.objectContaining({ field, reason, code })]);
    expect(res.body.error.message).toContain(field);
  });

  it('well-typed inputs start and finish the run', async () => {
    const res = await startRun(alice, TYPED, { org: 'Acme', limit: 3, depth: 'deep' });
    expect(res.status).toBe(201);
    expect((await waitForRun(stack, alice, res.body.run.id)).status).toBe('completed');
  });
});
