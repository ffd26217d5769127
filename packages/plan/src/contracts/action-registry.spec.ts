import { ActionIORegistry, BUILTIN_ACTIONS, defaultActionRegistry, deriveConnectorContract, connectorLookup } from '../index.js';
import { fixtureJson } from '../../test/fixture-loader.js';

/** Every action of seed §5 "Built-In Action I/O Registry", by section. */
const SEED_ACTIONS = {
  connector: ['call_connector'],
  knowledge_graph: ['search_knowledge_graph'],
  search: ['search_documents', 'search_web', 'crawl_url'],
  // + enrich_knowledge: the seed's §1 enrich_knowledge node, as the action the compiler adds for output.auto_enrich_graph.
  entity: ['extract_entities', 'resolve_entities', 'enrich_knowledge', 'cross_reference'],
  graph_analysis: ['analyze_graph'],
  transform: ['transform_data'],
  persistence: ['save_to_workspace', 'route_output'],
  monitor: ['detect_new_files', 'detect_folder_changes', 'detect_new_data', 'detect_new_team_posts', 'detect_new_entities', 'set_monitor_watermark', 'get_monitor_watermark'],
  journal: ['write_journal_entry', 'query_journal'],
  team: ['search_team_files', 'read_team_file', 'search_team_posts', 'write_team_post', 'summarize_team_thread'],
  notification: ['send_notification', 'send_channel_message', 'broadcast_to_team'],
  task: ['create_todo', 'list_todos', 'update_todo', 'complete_todo', 'search_todos'],
  file: ['read_file', 'find_file_by_name', 'find_file_by_vectors', 'patch_file', 'delete_file', 'move_file', 'copy_file'],
  llm: ['synthesize_report', 'llm_analyze', 'research_with_tools'],
};

describe('built-in action contracts', () => {
  const registry = defaultActionRegistry();

  it.each(Object.entries(SEED_ACTIONS))('section %s has exactly the seed actions', (category, names) => {
    expect(registry.list(category).map((c) => c.name)).toEqual(names);
  });

  it('has no action the seed does not list', () => {
    expect(BUILTIN_ACTIONS.map((c) => c.name).sort()).toEqual(Object.values(SEED_ACTIONS).flat().sort());
  });

  it('records inputs, params, outputs and requirements as the seed writes them', () => {
    expect(registry.get('search_web')).toMatchObject({
      inputs: { query: { type: 'string', required: true } },
      params: { max_results: { type: 'integer', default: 10 }, categories: { type: 'string[]' } },
      outputs: { results: { type: 'web_result[]', fields: { title: { type: 'any' }, url: { type: 'any' } } }, count: { type: 'integer' } },
    });
    expect(registry.get('resolve_entities')!.params.strategy!.default).toBe('fuzzy');
    expect(registry.get('detect_folder_changes')).toMatchObject({ watermarkType: 'hash' });
    expect(registry.get('write_team_post')).toMatchObject({ requires: 'team_post_access', sideEffect: true });
    expect(registry.get('search_knowledge_graph')!.inputs.entity_name!.required).toBeUndefined();
    expect(registry.get('research_with_tools')).toMatchObject({ stepType: 'llm_task', params: { max_rounds: { default: 3 } } });
  });
});

describe('plugin registration (seed §12)', () => {
  it('registers tools under plugin:<name>, inputs required unless stated, and unregisters them', () => {
    const registry = new ActionIORegistry();
    const names = registry.registerPlugin({
      plugin_name: 'trello',
      plugin_version: '1.0.0',
      tool_contracts: [
        { name: 'list_cards', inputs: { board_id: 'string', label: { type: 'string', required: false } }, outputs: { cards: 'record[]' }, read_only: true },
        { name: 'create_card', inputs: { title: 'string' }, params: { due: { type: 'date', default: null } }, outputs: { card_id: 'string' }, requires: 'trello_api_key' },
      ],
    });
    expect(names).toEqual(['list_cards', 'create_card']);
    expect(registry.get('list_cards')).toMatchObject({ category: 'plugin:trello', sideEffect: false, inputs: { board_id: { required: true }, label: { type: 'string' } } });
    expect(registry.get('list_cards')!.inputs.label!.required).toBeUndefined();
    expect(registry.get('create_card')).toMatchObject({ sideEffect: true, requires: 'trello_api_key' });
    expect(registry.unregisterPlugin('trello')).toBe(2);
    expect(registry.has('create_card')).toBe(false);
  });

  it('refuses to shadow a built-in and rejects malformed registrations with the path', () => {
    const registry = new ActionIORegistry();
    expect(() => registry.registerPlugin({ plugin_name: 'evil', tool_contracts: [{ name: 'search_web' }] })).toThrow("action 'search_web' is already registered");
    expect(() => registry.registerPlugin({ plugin_name: 'Bad-Name', tool_contracts: [] })).toThrow('invalid plugin registration at plugin_name');
    expect(registry.registerPlugin({ plugin_name: 'slack-webhook', tool_contracts: [{ name: 'post_message' }] })).toEqual(['post_message']);
    expect(registry.get('post_message')!.category).toBe('plugin:slack-webhook');
    expect(() => registry.registerPlugin({ plugin_name: 'x', tool_contracts: [{ name: 'ok', inputs: { a: 3 as never } }] })).toThrow('tool_contracts.0.inputs.a');
  });
});

describe('connector endpoint contracts (seed §4 parameters / output_schema)', () => {
  const defs = fixtureJson<unknown[]>('connectors.json');

  it('record_set endpoints: parameters → inputs, fields → results records, metadata fields → envelope', () => {
    const c = deriveConnectorContract(defs[0]);
    expect(c.endpoints.search_organizations).toEqual({
      description: 'Search nonprofits by name',
      outputType: 'record_set',
      inputs: { query: { type: 'string', required: true }, state: { type: 'string' } },
      outputs: {
        results: { type: 'record[]', fields: { ein: { type: 'string' }, name: { type: 'string' }, city: { type: 'string' }, revenue: { type: 'number' } } },
        count: { type: 'integer' },
        has_more: { type: 'boolean' },
        next_cursor: { type: 'string' },
        total_results: { type: 'integer' },
      },
    });
    expect(c.endpoints.get_organization).toMatchObject({ outputType: 'object', outputs: { name: { type: 'string' }, officers: { type: 'record[]' } } });
  });

  it('graphql variables are inputs; without output_schema, response_mapping names the record fields', () => {
    const c = deriveConnectorContract(defs[2]);
    expect(c.endpoints.search_repos).toMatchObject({
      inputs: { query: { type: 'string', required: true }, first: { type: 'integer', default: 10 } },
      outputs: { results: { type: 'record[]', fields: { name: { type: 'any' }, stars: { type: 'any' } } } },
    });
  });

  it('rejects a malformed definition naming the field', () => {
    expect(() => deriveConnectorContract({ id: 'x', endpoints: { e: { parameters: [{ type: 'string' }] } } })).toThrow('invalid connector definition at endpoints.e.parameters.0.name');
  });

  it('connectorLookup finds bound connectors only', () => {
    const lookup = connectorLookup(defs);
    expect([...lookup.ids()]).toEqual(['propublica-nonprofit', 'fec-contributions', 'github-repos']);
    expect(lookup.connector('nope')).toBeUndefined();
  });
});
