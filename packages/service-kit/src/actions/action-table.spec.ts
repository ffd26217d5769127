import { buildActionTable, parseActionServices, parsePluginActionName, pluginActionName, servedActionName } from './action-table.js';

describe('parseActionServices', () => {
  it('reads name=host:port entries, ignoring blanks and spaces', () => {
    expect(parseActionServices(' output-router=127.0.0.1:50056, ,entity-resolution = er.svc:50057,ipv6=[::1]:7000')).toEqual({
      entries: [
        { name: 'output-router', address: '127.0.0.1:50056' },
        { name: 'entity-resolution', address: 'er.svc:50057' },
        { name: 'ipv6', address: '[::1]:7000' },
      ],
      errors: [],
    });
    expect(parseActionServices('')).toEqual({ entries: [], errors: [] });
  });

  it.each([
    ['127.0.0.1:50056', "entry 1 '127.0.0.1:50056' must be <service-name>=<host>:<port>"],
    ['router=', "entry 1 'router=' must be"],
    ['Router=host:1', "entry 1 'Router=host:1' must be"],
    ['router=host', "entry 1 'router=host' must be"],
    ['a=h:1,router=host:70000', "entry 2 'router=host:70000' must be"],
    ['router=unix:/tmp/s', "entry 1 'router=unix:/tmp/s' must be"],
  ])('refuses %s naming the entry', (text, message) => {
    const { errors } = parseActionServices(text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(message);
  });

  it('refuses a service listed twice', () => {
    expect(parseActionServices('a=h:1,a=h:2').errors).toEqual(["service 'a' is listed twice"]);
  });
});

describe('buildActionTable', () => {
  const entry = (name: string) => ({ name, address: `${name}:1` });
  it('maps each action to the service that serves it', () => {
    const table = buildActionTable([
      { entry: entry('router'), service: 'output-router', actions: [{ name: 'save_to_workspace', version: '1', sideEffects: true }] },
      { entry: entry('er'), service: 'entity-resolution', actions: [{ name: 'resolve_entities', version: '2', sideEffects: true }] },
    ]);
    expect(table.byAction.get('save_to_workspace')).toEqual({ action: 'save_to_workspace', service: 'output-router', address: 'router:1', version: '1', sideEffects: true });
    expect(table.byAction.get('resolve_entities')?.service).toBe('entity-resolution');
    expect(table.byAction.has('send_notification')).toBe(false);
    expect(table.conflicts).toEqual([]);
  });

  it('gives an action two services offer to the first configured one and reports the conflict', () => {
    const table = buildActionTable([
      { entry: entry('a'), service: 'svc-a', actions: [{ name: 'x', version: '1', sideEffects: false }] },
      { entry: entry('b'), service: 'svc-b', actions: [{ name: 'x', version: '1', sideEffects: false }] },
    ]);
    expect(table.byAction.get('x')?.service).toBe('svc-a');
    expect(table.conflicts).toEqual([{ action: 'x', services: ['svc-a', 'svc-b'] }]);
  });
});

describe('the plugin routing rule', () => {
  it('serves a node naming a plugin as plugin:<plugin>.<action>, any other node by its action', () => {
    expect(servedActionName({ action: 'post_message', params: { plugin: 'slack_webhook' } })).toBe('plugin:slack_webhook.post_message');
    expect(servedActionName({ action: 'save_to_workspace', params: { folder: 'x' } })).toBe('save_to_workspace');
    expect(servedActionName({ action: 'save_to_workspace', params: { plugin: '' } })).toBe('save_to_workspace');
    expect(servedActionName({ action: 'save_to_workspace' })).toBe('save_to_workspace');
  });

  it('round-trips plugin action names and rejects other names', () => {
    expect(parsePluginActionName(pluginActionName('slack_webhook', 'post_message'))).toEqual({ plugin: 'slack_webhook', tool: 'post_message' });
    expect(parsePluginActionName('plugin:orchestrator.tools.web.fetch')).toEqual({ plugin: 'orchestrator.tools.web', tool: 'fetch' });
    for (const name of ['save_to_workspace', 'plugin:', 'plugin:p', 'plugin:.t', 'plugin:p.']) expect(parsePluginActionName(name)).toBeUndefined();
  });
});
