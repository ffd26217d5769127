/**
 * What a step produces — the shape downstream references are checked against
 * (seed §5 rule 3c) — from its action contract, its connector endpoint, or its
 * llm `output_schema`; plus the JSON Schema the IR carries for llm nodes.
 */
import type { ConnectorContractLookup, EndpointContract } from '../contracts/connector-contract.js';
import { elementType, isRecordType, SCALAR_TYPES, type FieldSpec } from '../types/io-type.js';
import type { FlatStep } from './playbook-steps.js';
import type { StepOutputSchema } from './playbook.schema.js';

/** The literal connector/endpoint a step calls, when written as plain strings. */
export function connectorTarget(flat: FlatStep): { connector?: string; endpoint?: string } {
  const s = flat.step;
  const lit = (v: unknown): string | undefined => (typeof v === 'string' && !v.includes('{') ? v : undefined);
  if (flat.contract?.name === 'detect_new_data') {
    return { ...optional('connector', lit(s.inputs?.connector)), ...optional('endpoint', lit(s.inputs?.endpoint)) };
  }
  return { ...optional('connector', lit(s.connector ?? s.params?.connector)), ...optional('endpoint', lit(s.endpoint ?? s.params?.endpoint)) };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** The endpoint contract of a connector step, when the connector and endpoint are known. */
export function endpointOf(flat: FlatStep, connectors: ConnectorContractLookup | undefined): EndpointContract | undefined {
  if (!connectors || !flat.contract?.dynamicOutputs || flat.stepType !== 'tool') return undefined;
  const { connector, endpoint } = connectorTarget(flat);
  if (connector === undefined || endpoint === undefined) return undefined;
  const c = connectors.connector(connector);
  return c && Object.prototype.hasOwnProperty.call(c.endpoints, endpoint) ? c.endpoints[endpoint] : undefined;
}

/** Whether an output_schema field type is one the type language knows. */
export function isKnownFieldType(type: string): boolean {
  const base = elementType(type) ?? type;
  return SCALAR_TYPES.has(base) || isRecordType(base) || base === 'any';
}

function schemaFields(schema: StepOutputSchema): Record<string, FieldSpec> {
  const out: Record<string, FieldSpec> = {};
  for (const f of schema.fields) out[f.name] = f.description ? { type: f.type, description: f.description } : { type: f.type };
  return out;
}

/** Output shape of an llm_task `output_schema` (scalar = an object with its one field). */
export function outputSchemaSpec(schema: StepOutputSchema): FieldSpec {
  const fields = schemaFields(schema);
  if (schema.type === 'record_set') {
    return { type: 'record_set', fields: { results: { type: 'record[]', fields }, count: { type: 'integer' } } };
  }
  return { type: 'object', fields };
}

/** The shape `{outputKey…}` references resolve against. */
export function stepOutputSpec(flat: FlatStep, connectors: ConnectorContractLookup | undefined): FieldSpec {
  if (flat.stepType === 'approval' || flat.isGroup) return { type: 'object', fields: {} };
  if (flat.stepType === 'llm_task') return flat.step.output_schema ? outputSchemaSpec(flat.step.output_schema) : { type: 'any' };
  const contract = flat.contract;
  if (!contract) return { type: 'any' };
  const endpoint = endpointOf(flat, connectors);
  if (endpoint) {
    const fields = contract.name === 'detect_new_data' ? { ...endpoint.outputs, ...contract.outputs, results: endpoint.outputs.results ?? contract.outputs.results! } : endpoint.outputs;
    return { type: endpoint.outputType === 'record_set' ? 'record_set' : 'object', fields };
  }
  if (contract.dynamicOutputs) {
    // Connector unknown: the envelope is known, the records are open.
    return { type: 'record_set', fields: { ...contract.outputs, results: { type: 'record[]' } } };
  }
  return { type: contract.outputType === 'record_set' ? 'record_set' : 'object', fields: contract.outputs };
}

function jsonSchemaOf(type: string): Record<string, unknown> {
  const el = elementType(type);
  if (el !== undefined) return { type: 'array', items: jsonSchemaOf(el) };
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
    case 'any':
      return {};
    default:
      return { type: 'object' };
  }
}

function objectSchema(fields: StepOutputSchema['fields']): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const f of fields) properties[f.name] = f.description ? { ...jsonSchemaOf(f.type), description: f.description } : jsonSchemaOf(f.type);
  return { type: 'object', properties, required: fields.map((f) => f.name) };
}

/** JSON Schema of an llm_task output (what the IR's `outputSchema` holds). */
export function outputSchemaToJsonSchema(schema: StepOutputSchema): Record<string, unknown> {
  if (schema.type === 'record_set') {
    return {
      type: 'object',
      properties: { results: { type: 'array', items: objectSchema(schema.fields) }, count: { type: 'integer' } },
      required: ['results'],
    };
  }
  return objectSchema(schema.fields);
}
