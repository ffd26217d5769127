/**
 * JSON Schemas of a connector's endpoints, for the planner, the composer UI
 * and LLM tool binding: inputs from the declared `parameters` (or graphql
 * `variables`), outputs as the `call_connector` result envelope whose record
 * shape comes from `output_schema`, else from `response_mapping.fields`.
 * Pure; works for every connector type.
 */
import type { ConnectorDefinition } from './connector-definition.schema.js';

export interface EndpointJsonSchemas {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

interface ParameterLike {
  name: string;
  type?: string;
  description?: string;
  required?: boolean;
  default?: unknown;
}

interface FieldLike {
  name: string;
  type: string;
  description?: string;
}

interface EndpointLike {
  description?: string;
  parameters?: ParameterLike[];
  variables?: ParameterLike[];
  response_mapping?: { fields?: Record<string, string>; entity_type?: string };
  output_schema?: { type?: string; fields?: FieldLike[]; metadata_fields?: FieldLike[] };
  passthrough?: boolean;
}

export function endpointJsonSchemas(def: ConnectorDefinition): EndpointJsonSchemas[] {
  return Object.entries(def.endpoints as Record<string, EndpointLike>).map(([name, ep]) => ({
    name,
    description: ep.description ?? '',
    inputSchema: inputSchemaOf([...(ep.parameters ?? []), ...(ep.variables ?? [])]),
    outputSchema: outputSchemaOf(ep),
  }));
}

export function inputSchemaOf(parameters: readonly ParameterLike[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of parameters) {
    properties[p.name] = {
      ...typeSchema(p.type ?? 'string'),
      ...(p.description ? { description: p.description } : {}),
      ...(p.default !== undefined ? { default: p.default } : {}),
    };
    if (p.required && p.default === undefined) required.push(p.name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function outputSchemaOf(ep: EndpointLike): Record<string, unknown> {
  if (ep.passthrough) return { type: 'object', description: 'the tool output, passed through unchanged' };
  const fields = ep.output_schema?.fields;
  let record: Record<string, unknown> = { type: 'object' };
  if (fields?.length) {
    record = {
      type: 'object',
      properties: Object.fromEntries(
        fields.map((f) => [f.name, { ...typeSchema(f.type), ...(f.description ? { description: f.description } : {}) }]),
      ),
    };
  } else if (ep.response_mapping?.fields) {
    // Mapped fields are present on every record; their types are unknown until a sample is seen.
    record = {
      type: 'object',
      properties: Object.fromEntries(Object.keys(ep.response_mapping.fields).map((k) => [k, {}])),
      required: Object.keys(ep.response_mapping.fields),
    };
  }
  if (ep.response_mapping?.entity_type) record['x-entity-type'] = ep.response_mapping.entity_type;
  const envelope: Record<string, unknown> = {
    type: 'object',
    properties: {
      results: { type: 'array', items: record },
      count: { type: 'integer', minimum: 0 },
      has_more: { type: 'boolean' },
      next_cursor: { type: 'string' },
      warnings: { type: 'array', items: { type: 'string' } },
    },
    required: ['results', 'count'],
  };
  for (const f of ep.output_schema?.metadata_fields ?? []) {
    (envelope.properties as Record<string, unknown>)[f.name] = typeSchema(f.type);
  }
  return envelope;
}

/** Seed types (`string`, `integer[]`, `date`, `record`, …) → JSON Schema. */
export function typeSchema(type: string): Record<string, unknown> {
  if (type.endsWith('[]')) return { type: 'array', items: typeSchema(type.slice(0, -2)) };
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'integer':
      return { type: 'integer' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'object':
    case 'record':
      return { type: 'object' };
    case 'array':
      return { type: 'array' };
    default:
      return {};
  }
}
