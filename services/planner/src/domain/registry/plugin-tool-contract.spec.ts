import { fieldsOf, ioTypeOf, pluginRegistrations } from './plugin-tool-contract.js';

describe('ioTypeOf', () => {
  it.each([
    [{ type: 'string' }, 'string'],
    [{ type: 'string', format: 'date-time' }, 'date'],
    [{ type: 'integer' }, 'integer'],
    [{ type: ['number', 'null'] }, 'number'],
    [{ type: 'boolean' }, 'boolean'],
    [{ type: 'object' }, 'object'],
    [{ type: 'array', items: { type: 'string' } }, 'string[]'],
    [{ type: 'array', items: { type: 'array' } }, 'any[]'],
    [{ type: 'array' }, 'any[]'],
    [{}, 'any'],
    [null, 'any'],
  ])('%j is %s', (schema, type) => {
    expect(ioTypeOf(schema)).toBe(type);
  });
});

describe('fieldsOf', () => {
  it('marks required properties and keeps descriptions', () => {
    expect(fieldsOf({ type: 'object', required: ['text'], properties: { text: { type: 'string', description: 'Message' }, channel: { type: 'string' } } })).toEqual({
      text: { type: 'string', required: true, description: 'Message' },
      channel: { type: 'string', required: false },
    });
    expect(fieldsOf({ type: 'object' })).toEqual({});
  });
});

describe('pluginRegistrations', () => {
  it('groups listed plugin tools per plugin in the registry form, and ignores other actions', () => {
    const tool = (name: string, sideEffects: boolean) => ({
      served: `plugin:slack_webhook.${name}`,
      sideEffects,
      contract: { category: 'plugin:slack_webhook', plugin: 'slack_webhook', tool: name, description: `${name} tool`, input_schema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } }, output_schema: { type: 'object', properties: { ok: { type: 'boolean' } } }, requires: 'webhook' },
    });
    expect(pluginRegistrations([tool('post_message', true), tool('ping', false), { served: 'save_to_workspace', sideEffects: true, contract: { category: 'persistence' } }])).toEqual([
      {
        plugin_name: 'slack_webhook',
        tool_contracts: [
          { name: 'post_message', description: 'post_message tool', inputs: { text: { type: 'string', required: true } }, outputs: { ok: { type: 'boolean', required: false } }, requires: 'webhook', read_only: false },
          { name: 'ping', description: 'ping tool', inputs: { text: { type: 'string', required: true } }, outputs: { ok: { type: 'boolean', required: false } }, requires: 'webhook', read_only: true },
        ],
      },
    ]);
  });
});
