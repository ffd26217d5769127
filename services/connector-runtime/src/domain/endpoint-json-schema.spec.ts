import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConnectorYaml } from './connector-definition.js';
import { endpointJsonSchemas, typeSchema } from './endpoint-json-schema.js';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

describe('endpointJsonSchemas', () => {
  const parsed = parseConnectorYaml(fixture('fec-contributions.connector.yaml'));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const schemas = endpointJsonSchemas(parsed.definition);

  it('gives one entry per endpoint, in declaration order', () => {
    expect(schemas.map((s) => s.name)).toEqual(Object.keys(parsed.definition.endpoints));
  });

  it('turns parameters into an input schema that accepts good inputs and refuses bad ones', () => {
    const ajv = new Ajv({ strict: false });
    for (const s of schemas) {
      const validate = ajv.compile(s.inputSchema);
      const required = (s.inputSchema.required as string[] | undefined) ?? [];
      const props = s.inputSchema.properties as Record<string, { type?: string }>;
      if (required.length > 0) expect(validate({})).toBe(false);
      expect(validate({ not_a_parameter: 1, ...Object.fromEntries(required.map((r) => [r, sample(props[r]?.type)])) })).toBe(false);
      expect(validate(Object.fromEntries(required.map((r) => [r, sample(props[r]?.type)])))).toBe(true);
    }
  });

  it('describes the call_connector envelope with the mapped record fields', () => {
    const withFields = schemas.find((s) => {
      const items = ((s.outputSchema.properties as Record<string, { items?: { properties?: object } }>).results?.items ?? {}) as { properties?: object };
      return items.properties && Object.keys(items.properties).length > 0;
    });
    expect(withFields).toBeDefined();
    expect(withFields!.outputSchema.required).toEqual(['results', 'count']);
    const ajv = new Ajv({ strict: false });
    expect(ajv.validate(withFields!.outputSchema, { results: [], count: 0 })).toBe(true);
    expect(ajv.validate(withFields!.outputSchema, { results: 'nope', count: 0 })).toBe(false);
  });

  it('maps seed types, including arrays and dates', () => {
    expect(typeSchema('integer[]')).toEqual({ type: 'array', items: { type: 'integer' } });
    expect(typeSchema('date')).toEqual({ type: 'string', format: 'date' });
    expect(typeSchema('record')).toEqual({ type: 'object' });
    expect(typeSchema('mystery')).toEqual({});
  });
});

function sample(type: string | undefined): unknown {
  switch (type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'x';
  }
}
