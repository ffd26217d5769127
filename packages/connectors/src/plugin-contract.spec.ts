import { checkPluginRegistration, parsePluginAddress, type PluginRegistration } from './plugin-contract.js';

const valid: PluginRegistration = {
  name: 'slack-webhook',
  version: '0.1.0',
  description: 'Post to Slack',
  connectionType: 'slack_webhook',
  requiredConfig: ['webhook_url'],
  toolPackName: 'slack',
  tools: [
    {
      name: 'post_message',
      description: 'Post a message',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { text: { type: 'string', format: 'made-up' } },
        required: ['text'],
      },
      outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      requires: 'slack_webhook',
      sideEffecting: true,
    },
  ],
  address: 'slack-plugin.plugins.svc:50100',
};

describe('checkPluginRegistration', () => {
  it('accepts a well-formed registration (other drafts’ $schema and unknown formats included)', () => {
    expect(checkPluginRegistration(valid)).toEqual([]);
    expect(
      checkPluginRegistration({
        ...valid,
        name: 'orchestrator.tools.web_tools',
        connectionType: 'none',
        requiredConfig: [],
      }),
    ).toEqual([]);
  });

  it('names every bad field the way the wire does', () => {
    const tool = valid.tools[0]!;
    const v = checkPluginRegistration({
      name: 'Slack Hook',
      version: '1',
      description: 'x'.repeat(2001),
      connectionType: 'Slack-Webhook',
      requiredConfig: ['ok', 'bad-key', 'ok'],
      toolPackName: '',
      address: 'no-port',
      tools: [
        { ...tool, name: '9lives' },
        { ...tool, description: ' ' },
        { ...tool, name: 'post_message', requires: 'Bad!' },
        { ...tool, name: 'listy', inputSchema: { type: 'array' } },
        { ...tool, name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } },
        { ...tool, name: 'huge', outputSchema: { type: 'object', description: 'x'.repeat(70_000) } },
        { ...tool, name: 'missing', outputSchema: undefined as unknown as Record<string, unknown> },
      ],
    });
    expect(v).toEqual([
      { field: 'name', reason: expect.stringContaining('lower-case') },
      { field: 'version', reason: expect.stringContaining('semantic version') },
      { field: 'description', reason: 'must be at most 2000 characters' },
      { field: 'connection_type', reason: expect.any(String) },
      { field: 'required_config[1]', reason: expect.any(String) },
      { field: 'required_config[2]', reason: 'repeats "ok"' },
      { field: 'tool_pack_name', reason: 'is required' },
      { field: 'address', reason: expect.stringContaining('host:port') },
      { field: 'tools[0].name', reason: expect.stringContaining('start with a letter') },
      { field: 'tools[1].description', reason: 'is required' },
      { field: 'tools[2].name', reason: 'repeats tool "post_message"' },
      { field: 'tools[2].requires', reason: 'must be a connection type or empty' },
      { field: 'tools[3].input_schema.type', reason: expect.stringContaining('"object"') },
      { field: 'tools[4].input_schema', reason: expect.stringContaining('is not a valid JSON Schema') },
      { field: 'tools[5].output_schema', reason: 'must be at most 64 KiB of JSON' },
      { field: 'tools[6].output_schema', reason: 'is required' },
    ]);
  });

  it('requires at least one tool and at most 100', () => {
    expect(checkPluginRegistration({ ...valid, tools: [] })).toEqual([
      { field: 'tools', reason: 'must declare at least one tool' },
    ]);
    const many = Array.from({ length: 101 }, (_, i) => ({ ...valid.tools[0]!, name: `t${i}` }));
    expect(checkPluginRegistration({ ...valid, tools: many })).toEqual([
      { field: 'tools', reason: 'must declare at most 100 tools' },
    ]);
  });
});

describe('parsePluginAddress', () => {
  it.each([
    ['127.0.0.1:50100', { host: '127.0.0.1', port: 50100 }],
    ['slack-plugin:1', { host: 'slack-plugin', port: 1 }],
    ['[::1]:8080', { host: '[::1]', port: 8080 }],
  ])('accepts %s', (address, parts) => expect(parsePluginAddress(address)).toEqual(parts));

  it.each([
    '',
    'host',
    ':80',
    'host:0',
    'host:65536',
    'host:port',
    'bad_host!:80',
    'http://host:80',
    '::1:80',
    '999.1.1.1:80',
  ])('refuses %j', (address) => expect(parsePluginAddress(address)).toBeUndefined());
});
