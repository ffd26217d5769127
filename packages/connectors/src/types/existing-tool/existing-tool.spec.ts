import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConnectorDefinition, parseConnectorYaml } from '../../connector-definition.js';
import type { ConnectorDefinition } from '../../connector-definition.schema.js';
import { ConnectorError } from '../../connector-error.js';
import type { ExecutionContext, PluginInvoker } from '../../connector-type.js';
import { executeEndpoint } from '../../execute-endpoint.js';
import {
  existingToolTarget,
  existingToolType,
  type ExistingToolConnectorDefinition,
} from './existing-tool.js';
import { failure } from '../../testing.js';

const SEED = readFileSync(join(__dirname, '../../fixtures/seed-existing-tool.connector.yaml'), 'utf8');

const noHttp = (() => {
  throw new Error('existing_tool connectors make no HTTP calls of their own');
}) as unknown as ExecutionContext['http'];

function parse(yamlOrObject: string | Record<string, unknown>): ConnectorDefinition {
  const parsed =
    typeof yamlOrObject === 'string'
      ? parseConnectorYaml(yamlOrObject)
      : parseConnectorDefinition(yamlOrObject);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

function errorsOf(def: Record<string, unknown>) {
  const parsed = parseConnectorDefinition(def);
  if (parsed.ok) throw new Error('expected the definition to be refused');
  return parsed.errors;
}

function recorder(answer: Record<string, unknown> | Error = { ok: true }) {
  const calls: Array<Parameters<PluginInvoker>> = [];
  const invokePlugin: PluginInvoker = async (...args) => {
    calls.push(args);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { calls, invokePlugin };
}

const slack = {
  id: 'team-slack',
  name: 'Team Slack',
  type: 'existing_tool',
  connection: { plugin: 'slack-webhook' },
  endpoints: {
    notify: {
      tool: 'post_message',
      parameters: [
        { name: 'text', type: 'string', required: true },
        { name: 'channel', type: 'string', default: '#general' },
      ],
    },
    post_message: { parameters: [{ name: 'text', type: 'string', required: true }], passthrough: true },
    search: {
      tool: 'search',
      response_mapping: { results_path: 'items', fields: { title: 'name', link: 'url' } },
    },
  },
};


describe('existing_tool connectors', () => {
  it('the seed example parses and runs: tool_module is the plugin, tool_function the tool, passthrough keeps the output', async () => {
    const def = parse(SEED);
    expect(existingToolTarget(def as ExistingToolConnectorDefinition, 'search')).toEqual({
      plugin: 'orchestrator.tools.web_tools',
      tool: 'search_web_tool',
    });
    const output = { results: [{ title: 'A', url: 'https://a.test' }], engine: 'searxng' };
    const { calls, invokePlugin } = recorder(output);
    const result = await executeEndpoint(
      def,
      'search',
      { query: 'open data' },
      {},
      { http: noHttp, invokePlugin, idempotencyKey: 'run1:n1:1' },
    );
    expect(result).toEqual(output);
    expect(calls).toEqual([
      [
        'orchestrator.tools.web_tools',
        'search_web_tool',
        { query: 'open data', max_results: 10 },
        { timeoutMs: 30_000, idempotencyKey: 'run1:n1:1' },
      ],
    ]);
    expect(existingToolType.requiredCredentials(def)).toEqual([]);
    expect(existingToolType.timeoutMs(def)).toBe(30_000);
  });

  it('wraps the output into the {results, count} envelope, and names the tool by endpoint tool or endpoint name', async () => {
    const def = parse(slack);
    const { calls, invokePlugin } = recorder({ ok: true, status: 200 });
    await expect(
      executeEndpoint(def, 'notify', { text: 'hi' }, {}, { http: noHttp, invokePlugin }),
    ).resolves.toEqual({ results: [{ ok: true, status: 200 }], count: 1 });
    expect(calls[0]!.slice(0, 3)).toEqual([
      'slack-webhook',
      'post_message',
      { text: 'hi', channel: '#general' },
    ]);
    await expect(
      executeEndpoint(def, 'post_message', { text: 'raw' }, {}, { http: noHttp, invokePlugin }),
    ).resolves.toEqual({ ok: true, status: 200 });
    expect(calls[1]!.slice(0, 2)).toEqual(['slack-webhook', 'post_message']);
  });

  it('applies response_mapping to the output', async () => {
    const def = parse(slack);
    const { invokePlugin } = recorder({ items: [{ name: 'A', url: 'u1', extra: 1 }, { name: 'B' }] });
    await expect(executeEndpoint(def, 'search', {}, {}, { http: noHttp, invokePlugin })).resolves.toEqual({
      results: [
        { title: 'A', link: 'u1' },
        { title: 'B', link: null },
      ],
      count: 2,
    });
  });

  it('checks inputs against declared parameters before calling the plugin', async () => {
    const def = parse(slack);
    const { calls, invokePlugin } = recorder();
    const err = await failure(
      executeEndpoint(def, 'notify', { channel: 5, colour: 'red' }, {}, { http: noHttp, invokePlugin }),
    );
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toEqual([
      { field: 'inputs.colour', reason: expect.stringContaining('is not a parameter of endpoint "notify"') },
      { field: 'inputs.text', reason: 'is required by endpoint "notify"' },
    ]);
    expect(calls).toHaveLength(0);
  });

  it('passes inputs through unchecked when the endpoint declares no parameters, but they must be an object', async () => {
    const def = parse(slack);
    const { calls, invokePlugin } = recorder({ items: [] });
    await executeEndpoint(def, 'search', { anything: [1, 2] }, {}, { http: noHttp, invokePlugin });
    expect(calls[0]![2]).toEqual({ anything: [1, 2] });
    const err = await failure(
      existingToolType.execute(
        def,
        'search',
        [] as unknown as Record<string, unknown>,
        {},
        { http: noHttp, invokePlugin },
      ),
    );
    expect(err.violations).toEqual([{ field: 'inputs', reason: 'must be an object of tool inputs' }]);
  });

  it('forwards the timeout override, signal, idempotency key and calling user', async () => {
    const def = parse({ ...slack, connection: { plugin: 'slack-webhook', timeout_seconds: 5 } });
    const { calls, invokePlugin } = recorder();
    const signal = new AbortController().signal;
    await executeEndpoint(def, 'notify', { text: 'x' }, {}, { http: noHttp, invokePlugin });
    expect(calls[0]![3]).toEqual({ timeoutMs: 5000 });
    const ctx: ExecutionContext = {
      http: noHttp,
      invokePlugin,
      timeoutMs: 1234,
      signal,
      idempotencyKey: 'k',
      ownerUserId: 'alice',
    };
    await executeEndpoint(def, 'notify', { text: 'x' }, {}, ctx);
    expect(calls[1]![3]).toEqual({ timeoutMs: 1234, signal, idempotencyKey: 'k', ownerUserId: 'alice' });
  });

  it('fails clearly without a plugin invoker, with a cancelled signal, and for an unknown endpoint', async () => {
    const def = parse(slack);
    const noInvoker = await failure(executeEndpoint(def, 'notify', { text: 'x' }, {}, { http: noHttp }));
    expect(noInvoker.code).toBe('FAILED_PRECONDITION');
    expect(noInvoker.message).toContain('plugin slack-webhook');
    const aborted = new AbortController();
    aborted.abort();
    const { invokePlugin, calls } = recorder();
    expect(
      (
        await failure(
          executeEndpoint(
            def,
            'notify',
            { text: 'x' },
            {},
            { http: noHttp, invokePlugin, signal: aborted.signal },
          ),
        )
      ).code,
    ).toBe('CANCELLED');
    expect(calls).toHaveLength(0);
    const unknown = await failure(executeEndpoint(def, 'nope', {}, {}, { http: noHttp, invokePlugin }));
    expect(unknown.code).toBe('NOT_FOUND');
    expect(unknown.message).toContain('notify, post_message, search');
  });

  it('lets the invoker’s errors through unchanged', async () => {
    const def = parse(slack);
    const down = new ConnectorError('UNAVAILABLE', 'plugin slack-webhook is inactive', {
      retryAfterMs: 10_000,
    });
    const { invokePlugin } = recorder(down);
    await expect(
      executeEndpoint(def, 'notify', { text: 'x' }, {}, { http: noHttp, invokePlugin }),
    ).rejects.toBe(down);
  });

  describe('definition rules', () => {
    it('requires a plugin (or tool_module) and refuses two different names', () => {
      expect(errorsOf({ ...slack, connection: {} })).toEqual([
        { field: 'connection.plugin', reason: expect.stringContaining('is required') },
      ]);
      expect(errorsOf({ ...slack, connection: { plugin: 'a', tool_module: 'b' } })).toEqual([
        { field: 'connection.tool_module', reason: 'names plugin "b" but plugin is "a"; give one of them' },
      ]);
      expect(parse({ ...slack, connection: { plugin: 'a', tool_module: 'a' } }).type).toBe('existing_tool');
      expect(errorsOf({ ...slack, connection: { plugin: 'Slack Hook' } })[0]).toMatchObject({
        field: 'connection.plugin',
        reason: expect.stringContaining('plugin name'),
      });
    });

    it('refuses unknown keys with a suggestion, bad tool names and passthrough with a mapping', () => {
      expect(errorsOf({ ...slack, endpoints: { a: { tool: 'post_message', passtrough: true } } })).toEqual([
        { field: 'endpoints.a.passtrough', reason: 'is not a known field; did you mean "passthrough"?' },
      ]);
      expect(errorsOf({ ...slack, endpoints: { a: { tool: 'post message' } } })[0]).toMatchObject({
        field: 'endpoints.a.tool',
      });
      expect(
        errorsOf({
          ...slack,
          endpoints: { a: { passthrough: true, response_mapping: { results_path: 'items' } } },
        }),
      ).toEqual([{ field: 'endpoints.a.response_mapping', reason: expect.stringContaining('passthrough') }]);
      expect(errorsOf({ ...slack, connection: { plugin: 'p', timeout_seconds: 0 } })[0]).toMatchObject({
        field: 'connection.timeout_seconds',
      });
      expect(
        errorsOf({
          ...slack,
          endpoints: {
            a: {
              parameters: [
                { name: 'n', type: 'integer', default: 'x' },
                { name: 'n', type: 'string' },
              ],
            },
          },
        }),
      ).toEqual([
        {
          field: 'endpoints.a.parameters[0].default',
          reason: expect.stringContaining('does not fit type integer'),
        },
        { field: 'endpoints.a.parameters[1].name', reason: 'duplicate parameter "n"' },
      ]);
    });

    it('reports YAML positions for existing_tool problems', () => {
      const parsed = parseConnectorYaml(
        SEED.replace('tool_module: orchestrator.tools.web_tools', 'tool_module: Not A Plugin'),
      );
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.errors[0]).toMatchObject({ field: 'connection.tool_module', line: 9 });
    });
  });
});
