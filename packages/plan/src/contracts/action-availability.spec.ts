import { compilePlaybook } from '../playbook/compile-playbook.js';
import { actionOwner, plannedActions, servedActionNames, unavailableActions } from './action-availability.js';
import { defaultActionRegistry } from './action-registry.js';

const registry = defaultActionRegistry();
registry.registerPlugin({ plugin_name: 'slack_webhook', tool_contracts: [{ name: 'post_message', inputs: { text: 'string' }, outputs: { ok: 'boolean' } }] });
const none = () => false;

describe('actionOwner', () => {
  it.each([
    ['search_documents', 'entity-resolution'],
    ['resolve_entities', 'entity-resolution'],
    ['analyze_graph', 'entity-resolution'],
    ['search_knowledge_graph', 'entity-resolution'],
    ['save_to_workspace', 'output-router'],
    ['send_notification', 'output-router'],
    ['write_team_post', 'output-router'],
    ['create_todo', 'output-router'],
    ['read_file', 'output-router'],
    ['detect_new_data', 'orchestrator'],
    ['write_journal_entry', 'planner'],
    ['query_journal', 'planner'],
    ['search_web', 'connector-runtime'],
    ['post_message', 'connector-runtime'],
  ])('%s is owned by %s', (action, owner) => {
    expect(actionOwner(action, registry)).toBe(owner);
  });

  it('knows no owner for an action the registry does not hold', () => {
    expect(actionOwner('no_such_action', registry)).toBeUndefined();
  });
});

describe('plannedActions', () => {
  it('finds tool actions in nodes, map bodies, inline subflow plans and rollbacks, with the served name', () => {
    const plan = {
      nodes: [
        { id: 'a', kind: 'tool', action: 'save_to_workspace', source: 'steps[0]', params: {} },
        { id: 'b', kind: 'llm', action: 'llm_analyze' },
        { id: 'c', kind: 'tool', action: 'post_message', params: { plugin: 'slack_webhook' }, errorPolicy: { rollback: { plugin: 'slack_webhook', action: 'delete_message' } } },
        { id: 'm', kind: 'map', body: { nodes: [{ id: 'x', kind: 'tool', action: 'send_notification' }] } },
        { id: 's', kind: 'subflow', params: { plan: { nodes: [{ id: 'y', kind: 'tool', action: 'create_todo' }] } } },
      ],
    };
    expect(plannedActions(plan)).toEqual([
      { field: 'steps[0].action', nodeId: 'a', action: 'save_to_workspace', served: 'save_to_workspace' },
      { field: 'nodes.c.action', nodeId: 'c', action: 'post_message', plugin: 'slack_webhook', served: 'plugin:slack_webhook.post_message' },
      { field: 'nodes.c.errorPolicy.rollback.action', nodeId: 'c', action: 'delete_message', plugin: 'slack_webhook', served: 'plugin:slack_webhook.delete_message' },
      { field: 'nodes.m.body.nodes.x.action', nodeId: 'x', action: 'send_notification', served: 'send_notification' },
      { field: 'nodes.s.params.plan.nodes.y.action', nodeId: 'y', action: 'create_todo', served: 'create_todo' },
    ]);
  });

  it('ignores what is not a plan', () => {
    expect(plannedActions(null)).toEqual([]);
    expect(plannedActions({ nodes: [1, null, { id: 'a', kind: 'tool' }] })).toEqual([]);
  });
});

describe('unavailableActions', () => {
  const plan = {
    nodes: [
      { id: 'fetch', kind: 'tool', action: 'call_connector', params: { connector: 'c', endpoint: 'e' } },
      { id: 'shape', kind: 'tool', action: 'transform_data' },
      { id: 'search', kind: 'tool', action: 'search_documents', source: 'steps[2]' },
      { id: 'post', kind: 'tool', action: 'post_message', params: { plugin: 'slack_webhook' } },
      { id: 'odd', kind: 'tool', action: 'made_up' },
    ],
  };

  it('accepts in-process actions without any service and names each unserved action with its owner', () => {
    expect(unavailableActions(plan, none, registry)).toEqual([
      {
        field: 'steps[2].action',
        code: 'action_unavailable',
        reason: "action 'search_documents' is not available in this deployment: it is served by entity-resolution, which is not among the services this deployment is configured with (ACTION_SERVICES)",
      },
      {
        field: 'nodes.post.action',
        code: 'action_unavailable',
        reason: "action 'post_message' of plugin 'slack_webhook' is not available in this deployment: no registered plugin 'slack_webhook' has a tool 'post_message' (plugin tools are served by connector-runtime, which must be in ACTION_SERVICES)",
      },
      {
        field: 'nodes.odd.action',
        code: 'action_unavailable',
        reason: "action 'made_up' is not available in this deployment: no service of ACTION_SERVICES serves it and it is not a built-in action",
      },
    ]);
  });

  it('lists the served names a plan needs, without the in-process ones, and names nodes by id when asked', () => {
    expect(servedActionNames(plan)).toEqual(['search_documents', 'plugin:slack_webhook.post_message', 'made_up']);
    expect(unavailableActions(plan, none, registry, false).map((v) => v.field)).toEqual(['nodes.search.action', 'nodes.post.action', 'nodes.odd.action']);
  });

  it('accepts actions served under their served name', () => {
    const served = new Set(['search_documents', 'plugin:slack_webhook.post_message', 'made_up']);
    expect(unavailableActions(plan, (n) => served.has(n), registry)).toEqual([]);
    // A plugin tool is served only under its plugin's name, not under the bare tool name.
    expect(unavailableActions(plan, (n) => n !== 'plugin:slack_webhook.post_message', registry).map((v) => v.field)).toEqual(['nodes.post.action']);
  });

  it('names the playbook step of a compiled playbook, and a plugin tool step runs in its plugin', () => {
    const result = compilePlaybook(
      [
        'id: p',
        'name: P',
        'steps:',
        '  - name: found',
        '    step_type: tool',
        '    action: search_documents',
        '    inputs: { query: x }',
        '  - name: posted',
        '    step_type: tool',
        '    action: post_message',
        '    inputs: { text: hi }',
      ].join('\n'),
      { registry },
    );
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.plan.nodes.find((n) => n.id === 'posted')!.params).toEqual({ plugin: 'slack_webhook' });
    expect(unavailableActions(result.plan, (n) => n === 'plugin:slack_webhook.post_message', registry).map((v) => v.field)).toEqual(['steps[0].action']);
  });
});
