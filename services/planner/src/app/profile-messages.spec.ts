/**
 * An agent profile's `output_config.auto_enrich_graph`: the playbooks its
 * runs execute are compiled with enrichment nodes after their connector
 * steps (as a playbook's own `output.auto_enrich_graph` adds), naming the
 * profile's flag; without the flag nothing is added; on a deployment that
 * does not serve enrich_knowledge the run goes without it, said in a note.
 */
import { compilePlaybook } from '@af/plan';
import { ProfileMessages } from './profile-messages.js';
import type { Playbooks } from './playbooks.js';
import type { ProfilesService } from './profiles.service.js';

const YAML = `id: people-pull
name: People pull
execution_mode: deterministic
steps:
  - name: people
    step_type: tool
    action: call_connector
    connector: registry-api
    endpoint: people
    inputs: {}
    output_key: people_rows
`;

function messages(outputConfig: Record<string, unknown>, served?: (action: string) => boolean) {
  const profile = {
    id: 'p1',
    user_id: 'alice',
    handle: 'registry',
    strategy: 'pipeline',
    skills: [{ skill_type: 'playbook', skill_reference: 'people-pull', is_enabled: true, priority: 0, parameters: {} }],
    output_config: outputConfig,
  };
  const compiled: Array<Record<string, unknown>> = [];
  const playbooks: Pick<Playbooks, 'compileStored'> = {
    compileStored: async (_owner, _id, opts = {}) => {
      compiled.push(opts);
      const r = compilePlaybook(YAML, opts.autoEnrichGraph ? { autoEnrichGraph: true } : {});
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      return { plan: r.plan, results: r.results, playbook: {} as never };
    },
  };
  const profiles = {
    authorize: async () => ({ view: { profile, access: 'owner', permissions: [], sharedWith: [] } }),
    resolve: async () => ({ agent: { profile } }),
  } as unknown as Pick<ProfilesService, 'authorize' | 'resolve'>;
  return { messages: new ProfileMessages(profiles, playbooks, false, undefined, undefined, undefined, served), compiled };
}

const caller = { userId: 'alice', teamIds: [] };

describe("ProfileMessages.prepare: the profile's output_config.auto_enrich_graph", () => {
  it('adds an enrich_knowledge node after each connector step of the playbook the run executes', async () => {
    const { messages: m, compiled } = messages({ auto_enrich_graph: true });
    const out = await m.prepare(caller, 'pull the people', 'p1', {});
    expect(compiled).toEqual([{ autoEnrichGraph: true }]);
    expect(out.strategy).toBe('pipeline');
    const enrich = out.plan!.nodes.filter((n) => n.action === 'enrich_knowledge');
    expect(enrich).toEqual([
      expect.objectContaining({
        id: 'people_enrich',
        dependsOn: ['people'],
        inputs: { data: '{people_rows.results}' },
        params: { connector: 'registry-api', endpoint: 'people', source_node: 'people' },
        source: 'output_config.auto_enrich_graph',
      }),
    ]);
    expect(out.plan!.metadata?.enrich_nodes).toEqual(['people_enrich']);
  });

  it.each([[{}], [{ auto_enrich_graph: false }]])('adds nothing when the profile does not ask (%j)', async (outputConfig) => {
    const { messages: m, compiled } = messages(outputConfig);
    const out = await m.prepare(caller, 'pull the people', 'p1', {});
    expect(compiled).toEqual([{}]);
    expect(out.plan!.nodes.filter((n) => n.action === 'enrich_knowledge')).toEqual([]);
  });

  it('where no service serves enrich_knowledge, runs the playbook without enrichment and says so', async () => {
    const served: string[] = [];
    const { messages: m, compiled } = messages({ auto_enrich_graph: true }, (action) => {
      served.push(action);
      return false;
    });
    const out = await m.prepare(caller, 'pull the people', 'p1', {});
    expect(served).toEqual(['enrich_knowledge']);
    expect(compiled).toEqual([{}]);
    expect(out.plan!.nodes.filter((n) => n.action === 'enrich_knowledge')).toEqual([]);
    expect(out.notes).toContain('output_config.auto_enrich_graph: no service of this deployment serves enrich_knowledge, so this run does not feed the knowledge graph');
  });

  it('adds the nodes where enrich_knowledge is served', async () => {
    const { messages: m } = messages({ auto_enrich_graph: true }, (action) => action === 'enrich_knowledge');
    const out = await m.prepare(caller, 'pull the people', 'p1', {});
    expect(out.plan!.nodes.map((n) => n.id)).toEqual(['people', 'people_enrich']);
    expect(out.notes.filter((n) => n.includes('auto_enrich_graph'))).toEqual([]);
  });
});
