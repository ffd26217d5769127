import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultActionRegistry } from '../contracts/action-registry.js';
import { actionServiceNames, actionServicesOfConfigMap, availabilityOf, NOT_SERVED_YET, renderPlaybookReference } from './playbook-reference.js';

const ROOT = join(__dirname, '..', '..', '..', '..');
const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');
const registry = defaultActionRegistry();
const contract = (name: string) => registry.get(name)!;

describe('docs/playbooks.md', () => {
  it('is what `pnpm docs:gen` generates from the template, the registry and k8s/base ACTION_SERVICES', () => {
    const expected = renderPlaybookReference({
      template: read('scripts', 'docs', 'playbooks.template.md'),
      actionServices: actionServicesOfConfigMap(read('k8s', 'base', 'config.yaml')),
    });
    const committed = read('docs', 'playbooks.md');
    if (committed !== expected) {
      throw new Error('docs/playbooks.md is stale (the action registry, the playbook schema, the template or ACTION_SERVICES changed): run `pnpm docs:gen` and commit docs/playbooks.md');
    }
  });
});

describe('renderPlaybookReference', () => {
  const page = renderPlaybookReference({ template: '{{ACTIONS_SUMMARY}}\n{{ACTIONS_DETAIL}}\n{{STEP_KEYS}}', actionServices: ['connector-runtime'] });

  it('documents every built-in action with a heading, a summary row and its fields', () => {
    for (const c of registry.list()) {
      expect(page).toContain(`#### \`${c.name}\``);
      expect(page).toContain(`| [\`${c.name}\`](#${c.name}) |`);
      for (const input of Object.keys(c.inputs)) expect(page).toContain(`| \`${input}\` |`);
    }
    expect(page).toContain('| `query` | `string` | yes |  | Search query |');
    expect(page).toContain('| `max_hops` | `integer` |  | `2` | Neighbor depth |');
  });

  it('lists every step key of the schema', () => {
    for (const key of ['step_type', 'output_key', 'on_error', 'parallel_steps', 'team_ids']) expect(page).toContain(`| \`${key}\` |`);
  });

  it('refuses an unknown placeholder, naming it', () => {
    expect(() => renderPlaybookReference({ template: 'x {{NOPE}}', actionServices: [] })).toThrow('unknown placeholder {{NOPE}}');
  });
});

describe('availabilityOf', () => {
  it('the orchestrator runs connector calls, transforms and llm tasks itself', () => {
    expect(availabilityOf(contract('call_connector'), []).runs).toBe(true);
    expect(availabilityOf(contract('transform_data'), []).runs).toBe(true);
    const llm = availabilityOf(contract('llm_analyze'), []);
    expect(llm.runs).toBe(true);
    expect(llm.text).toContain('LLM_PROVIDER');
  });

  it('an action whose owner is not deployed is refused before a run starts, naming the owner', () => {
    const save = availabilityOf(contract('save_to_workspace'), ['connector-runtime']);
    expect(save).toEqual({ runs: false, text: 'no (`action_unavailable`): owned by output-router; refused before a run starts when that service is not deployed' });
    expect(availabilityOf(contract('resolve_entities'), ['connector-runtime']).text).toContain('owned by entity-resolution');
  });

  it('runs once its owner is among ACTION_SERVICES', () => {
    expect(availabilityOf(contract('save_to_workspace'), ['connector-runtime', 'output-router'])).toEqual({ runs: true, text: 'yes — served by output-router' });
  });

  it('the journal actions belong to the planner; the monitor actions run in the orchestrator itself', () => {
    expect(availabilityOf(contract('write_journal_entry'), ['connector-runtime'])).toEqual({
      runs: false,
      text: 'no (`action_unavailable`): owned by planner; refused before a run starts when that service is not deployed',
    });
    expect(availabilityOf(contract('query_journal'), ['connector-runtime', 'planner'])).toEqual({ runs: true, text: 'yes — served by planner' });
    expect(availabilityOf(contract('detect_new_data'), ['connector-runtime'])).toEqual({ runs: true, text: 'yes — the orchestrator runs it itself' });
  });

  it('the workspace detection actions belong to the output router', () => {
    expect(availabilityOf(contract('detect_new_files'), ['connector-runtime']).text).toContain('owned by output-router');
    expect(availabilityOf(contract('detect_folder_changes'), ['connector-runtime', 'output-router'])).toEqual({ runs: true, text: 'yes — served by output-router' });
  });

  it('connector-runtime serves its web actions when deployed, and they are unavailable without it', () => {
    for (const name of ['search_web', 'crawl_url']) {
      expect(availabilityOf(contract(name), ['connector-runtime'])).toEqual({ runs: true, text: 'yes — served by connector-runtime' });
      expect(availabilityOf(contract(name), ['output-router'])).toEqual({ runs: false, text: 'no (`action_unavailable`): owned by connector-runtime; refused before a run starts when that service is not deployed' });
    }
    expect(NOT_SERVED_YET).toEqual({});
  });
});

describe('ACTION_SERVICES parsing', () => {
  it('takes the service names of name=host:port entries', () => {
    expect(actionServiceNames('connector-runtime=cr:50051, output-router=or:50051,')).toEqual(['connector-runtime', 'output-router']);
    expect(actionServiceNames('')).toEqual([]);
  });

  it('reads them from a ConfigMap and refuses one without ACTION_SERVICES', () => {
    expect(actionServicesOfConfigMap('kind: ConfigMap\ndata:\n  ACTION_SERVICES: a=b:1,c=d:2\n')).toEqual(['a', 'c']);
    expect(() => actionServicesOfConfigMap('kind: ConfigMap\ndata: {}\n')).toThrow('data.ACTION_SERVICES');
  });
});
