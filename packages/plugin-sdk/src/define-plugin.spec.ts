import { z } from 'zod';
import { definePlugin, isPluginDefinition, PluginDefinitionError, type PluginSpec } from './define-plugin.js';

const echo = {
  description: 'Echo the text back',
  input: {
    type: 'object',
    properties: { text: { type: 'string', minLength: 1 }, times: { type: 'integer', default: 1 } },
    required: ['text'],
  },
  output: { type: 'object', properties: { echoed: { type: 'string' } }, required: ['echoed'] },
  handler: (inputs: Record<string, any>) => ({ echoed: String(inputs.text).repeat(inputs.times) }),
};

function violationsOf(spec: unknown): Array<{ field: string; reason: string }> {
  try {
    definePlugin(spec as PluginSpec<Record<string, never>>);
  } catch (err) {
    expect(err).toBeInstanceOf(PluginDefinitionError);
    return (err as PluginDefinitionError).violations;
  }
  throw new Error('expected the definition to be refused');
}

describe('definePlugin', () => {
  it('prepares a plugin with JSON Schema and zod tools, defaulting the tool pack to the name', () => {
    const plugin = definePlugin({
      name: 'echo-tools',
      version: '1.2.3',
      connectionType: 'none',
      tools: {
        echo,
        shout: {
          description: 'Upper-case the text',
          input: z.object({ text: z.string().min(1), excited: z.boolean().default(false) }),
          output: { type: 'object', properties: { text: { type: 'string' } } },
          // zod inputs are typed: `inputs.text` is a string here.
          handler: (inputs) => ({ text: inputs.text.toUpperCase() + (inputs.excited ? '!' : '') }),
        },
      },
    });
    expect(isPluginDefinition(plugin)).toBe(true);
    expect(isPluginDefinition({ name: 'x' })).toBe(false);
    expect(plugin.toolPack).toBe('echo-tools');
    expect(plugin.requiredConfig).toEqual([]);
    expect([...plugin.tools.keys()]).toEqual(['echo', 'shout']);
    const shout = plugin.tools.get('shout')!;
    expect(shout.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 } },
      required: ['text'],
    });
    expect(shout.validateInput({ text: 'hi' })).toEqual({ ok: true, value: { text: 'hi', excited: false } });
    expect(shout.validateInput({ text: 3 })).toEqual({
      ok: false,
      violations: [{ field: 'inputs.text', reason: expect.stringContaining('expected string') }],
    });
    expect(shout.sideEffecting).toBe(false);
  });

  it('applies JSON Schema defaults without mutating the caller’s object, and names nested fields', () => {
    const plugin = definePlugin({
      name: 'lists',
      version: '0.1.0',
      connectionType: 'api_key',
      requiredConfig: ['api_key'],
      tools: {
        add: {
          description: 'Add items',
          input: {
            type: 'object',
            properties: {
              items: {
                type: 'array',
                items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
              },
              mode: { enum: ['a', 'b'] },
            },
            required: ['items'],
            additionalProperties: false,
          },
          output: { type: 'object' },
          sideEffecting: true,
          handler: () => ({}),
        },
      },
    });
    const add = plugin.tools.get('add')!;
    const given = { items: [{ id: 1 }] };
    expect(add.validateInput(given)).toEqual({ ok: true, value: { items: [{ id: 1 }] } });
    expect(add.validateInput({ items: [{ id: 'x' }, {}], mode: 'c', extra: 1 })).toEqual({
      ok: false,
      violations: expect.arrayContaining([
        { field: 'inputs.extra', reason: 'is not an accepted field' },
        { field: 'inputs.items[0].id', reason: 'must be integer' },
        { field: 'inputs.items[1].id', reason: 'is required' },
        { field: 'inputs.mode', reason: 'must be one of "a", "b"' },
      ]),
    });
    expect(add.sideEffecting).toBe(true);
    const echoTool = definePlugin({
      name: 'e',
      version: '1.0.0',
      connectionType: 'none',
      tools: { echo },
    }).tools.get('echo')!;
    const input = { text: 'a' };
    expect(echoTool.validateInput(input)).toEqual({ ok: true, value: { text: 'a', times: 1 } });
    expect(input).toEqual({ text: 'a' });
  });

  it('lists every problem with its field path', () => {
    const violations = violationsOf({
      name: 'Bad Name',
      version: 'v1',
      connectionType: 'API-KEY',
      requiredConfig: ['ok_key', 'bad-key', 'ok_key'],
      toolPack: 'Pack!',
      tools: {
        '1bad': echo,
        nodesc: { ...echo, description: ' ' },
        nohandler: { ...echo, handler: 'nope' },
        listin: { ...echo, input: { type: 'array' } },
        typo: { ...echo, input: { type: 'object', properties: { a: { type: 'string', maxlength: 3 } } } },
        scalarout: { ...echo, output: { type: 'string' } },
        zodscalar: { ...echo, input: z.string() },
      },
    });
    expect(violations).toEqual(
      expect.arrayContaining([
        { field: 'name', reason: expect.stringContaining('lower-case') },
        { field: 'version', reason: expect.stringContaining('semantic version') },
        { field: 'connectionType', reason: expect.stringContaining('lower-case letters, digits and _') },
        { field: 'requiredConfig[1]', reason: expect.stringContaining('letters, digits and _') },
        { field: 'requiredConfig[2]', reason: 'repeats "ok_key"' },
        { field: 'toolPack', reason: expect.any(String) },
        { field: 'tools.1bad', reason: expect.stringContaining('start with a letter') },
        { field: 'tools.nodesc.description', reason: 'is required' },
        { field: 'tools.nohandler.handler', reason: 'must be a function' },
        { field: 'tools.listin.input.type', reason: expect.stringContaining('"object"') },
        { field: 'tools.typo.input', reason: expect.stringContaining('maxlength') },
        { field: 'tools.scalarout.output.type', reason: expect.stringContaining('"object"') },
        { field: 'tools.zodscalar.input', reason: expect.stringContaining('zod object') },
      ]),
    );
    expect(violations).toHaveLength(13);
  });

  it('refuses a plugin without tools, or a missing spec', () => {
    expect(violationsOf({ name: 'empty', version: '1.0.0', connectionType: 'none', tools: {} })).toEqual([
      { field: 'tools', reason: 'must declare at least one tool' },
    ]);
    expect(violationsOf(undefined).map((v) => v.field)).toEqual([
      'name',
      'version',
      'connectionType',
      'tools',
    ]);
  });

  it('accepts module-path names like the seed existing_tool example', () => {
    const plugin = definePlugin({
      name: 'orchestrator.tools.web_tools',
      version: '1.0.0',
      connectionType: 'none',
      tools: { search_web_tool: echo },
    });
    expect(plugin.name).toBe('orchestrator.tools.web_tools');
  });
});
