import { connectorLookup } from '@af/plan';
import { AppError, type ServiceKit } from '@af/service-kit';
import { noConnectorCatalog, type ConnectorCatalog } from '../infra/connector-catalog.js';
import { noPlaybookUsers, Playbooks } from './playbooks.js';

const alice = { userId: 'alice', teamIds: [] };

const api = {
  id: 'api',
  name: 'API',
  type: 'rest_api',
  endpoints: { search: { parameters: [{ name: 'q', type: 'string', required: true }], output_schema: { type: 'record_set', fields: [{ name: 'id', type: 'string' }] } } },
};

/** A catalog that answers with `api` and counts the look-ups. */
function catalog(): ConnectorCatalog & { asked: number } {
  const c = {
    asked: 0,
    async forCaller() {
      c.asked++;
      return { lookup: connectorLookup([api]) };
    },
  };
  return c;
}

const connectorPlaybook = (connector: string, endpoint: string) => `id: c
name: C
steps:
  - name: pull
    step_type: tool
    action: call_connector
    connector: ${connector}
    endpoint: ${endpoint}
    inputs: { q: x }
`;

const llmPlaybook = `id: l
name: L
steps:
  - { name: find, step_type: tool, action: search_web, inputs: { query: x } }
  - name: think
    step_type: llm_task
    action: llm_analyze
    inputs: { data: "{find.results}" }
    output_schema: { fields: [{ name: v, type: string }] }
`;

describe('Playbooks.report: what depends on the caller and the deployment', () => {
  it('checks the connectors a playbook names against the caller’s, naming the step with line and column', async () => {
    const playbooks = new Playbooks({} as ServiceKit, noPlaybookUsers, undefined, { connectors: catalog(), hasModel: true });
    expect(await playbooks.report(connectorPlaybook('api', 'search'), alice)).toMatchObject({ valid: true, errors: [], warnings: [] });
    const unknown = await playbooks.report(connectorPlaybook('apii', 'search'), alice);
    expect(unknown.valid).toBe(false);
    expect(unknown.errors).toEqual([expect.objectContaining({ code: 'unknown_connector', field: 'steps[0].connector', step: 'pull', suggestedFix: 'api', line: 7, column: 16 })]);
    const endpoint = await playbooks.report(connectorPlaybook('api', 'serch'), alice);
    expect(endpoint.errors).toEqual([expect.objectContaining({ code: 'unknown_endpoint', field: 'steps[0].endpoint', step: 'pull', suggestedFix: 'search', line: 8 })]);
  });

  it('asks connector-runtime only when the playbook names a connector', async () => {
    const c = catalog();
    const playbooks = new Playbooks({} as ServiceKit, noPlaybookUsers, undefined, { connectors: c, hasModel: true });
    await playbooks.report(llmPlaybook, alice);
    expect(c.asked).toBe(0);
    await playbooks.report(connectorPlaybook('api', 'search'), alice);
    expect(c.asked).toBe(1);
  });

  it('without connector-runtime: a warning that the connectors were not checked, not a failure', async () => {
    const playbooks = new Playbooks({} as ServiceKit, noPlaybookUsers, undefined, { connectors: noConnectorCatalog, hasModel: true });
    const r = await playbooks.report(connectorPlaybook('anything', 'at-all'), alice);
    expect(r.valid).toBe(true);
    expect(r.warnings).toEqual([
      { code: 'connectors_not_checked', field: '', message: 'the connectors and endpoints this playbook names were not checked: connector-runtime is not configured for the planner (CONNECTOR_RUNTIME_URL)' },
    ]);
  });

  it('an llm step without a model is a warning naming the step, at its action', async () => {
    const r = await new Playbooks({} as ServiceKit, noPlaybookUsers, undefined, { hasModel: false }).report(llmPlaybook, alice);
    expect(r.valid).toBe(true);
    expect(r.warnings).toEqual([expect.objectContaining({ code: 'no_model_configured', step: 'think', field: 'steps[1].action', line: 7, column: 13 })]);
    expect(r.warnings[0]!.message).toContain('LLM_PROVIDER');
    expect((await new Playbooks({} as ServiceKit, noPlaybookUsers, undefined, { hasModel: true }).report(llmPlaybook, alice)).warnings).toEqual([]);
  });

  it('compileFor throws INVALID_ARGUMENT whose violations carry step, line, column and the fix', async () => {
    const playbooks = new Playbooks({} as ServiceKit, noPlaybookUsers, undefined, { connectors: catalog(), hasModel: true });
    const err = await playbooks.compileFor(connectorPlaybook('apii', 'search'), alice).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).violations).toEqual([
      { field: 'steps[0].connector', reason: expect.stringContaining("step 'pull' calls connector 'apii'"), code: 'unknown_connector', suggestedFix: 'api', step: 'pull', line: 7, column: 16 },
    ]);
    expect((err as AppError).message).toMatch(/^steps\[0\]\.connector: .* \(line 7\)$/);
  });
});
