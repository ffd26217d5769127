/**
 * Connector endpoint contracts (seed §4 "Common Fields" + §5 `call_connector`):
 * each endpoint `parameters` entry (graphql: `variables`) becomes a wireable
 * input; its `output_schema` becomes the outputs. Without an output_schema the
 * record fields are inferred from `response_mapping.fields` (or a file parser's
 * `fields`), as the seed allows.
 */
import { z } from 'zod';
import type { FieldSpec } from '../types/io-type.js';

const ParameterSchema = z.looseObject({
  name: z.string().min(1),
  type: z.string().default('string'),
  description: z.string().optional(),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
});

const SchemaFieldSchema = z.looseObject({ name: z.string().min(1), type: z.string().default('any'), description: z.string().optional() });

const EndpointSchema = z.looseObject({
  description: z.string().optional(),
  parameters: z.array(ParameterSchema).optional(),
  variables: z.array(ParameterSchema).optional(),
  fields: z.array(z.looseObject({ field: z.string(), type: z.string().optional() })).optional(),
  response_mapping: z
    .looseObject({
      fields: z.record(z.string(), z.unknown()).optional(),
      entity_extraction: z
        .array(z.looseObject({ field: z.string().min(1), entity_type: z.string().min(1), relationship_type: z.string().optional() }))
        .optional(),
    })
    .optional(),
  output_schema: z
    .looseObject({
      type: z.enum(['record_set', 'object', 'scalar']).default('record_set'),
      fields: z.array(SchemaFieldSchema).default([]),
      metadata_fields: z.array(SchemaFieldSchema).default([]),
    })
    .optional(),
});

/** The parts of a connector definition (seed §4) that contracts are derived from. */
export const ConnectorDefinitionSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  type: z.string().optional(),
  endpoints: z.record(z.string(), EndpointSchema).default({}),
});
export type ConnectorDefinition = z.input<typeof ConnectorDefinitionSchema>;

/** A connector endpoint's `response_mapping.entity_extraction` hint: which record field holds an entity of which type. */
export interface EntityExtractionHint {
  field: string;
  entity_type: string;
  relationship_type?: string;
}

export interface EndpointContract {
  description?: string;
  /** What the knowledge graph is fed from each record when a playbook enriches it (`output.auto_enrich_graph`). */
  entityExtraction?: EntityExtractionHint[];
  inputs: Record<string, FieldSpec>;
  outputs: Record<string, FieldSpec>;
  outputType: 'record_set' | 'object';
}

export interface ConnectorContract {
  id: string;
  endpoints: Record<string, EndpointContract>;
}

/** A connector's binding to an agent profile (connector-runtime `Binding`). */
export interface ConnectorBinding {
  agentProfileId: string;
  connectorId: string;
  /** Empty: every endpoint. */
  allowedEndpoints: readonly string[];
  /** `active` | `auth_failed` | `disabled`. */
  status: string;
}

/**
 * What the playbook compiler asks about connectors: the contract of a
 * connector the caller may use (undefined = unknown), and — when bindings
 * are known — how a connector is bound to an agent profile.
 */
export interface ConnectorContractLookup {
  connector(id: string): ConnectorContract | undefined;
  /** Ids of the known connectors, for "did you mean" suggestions. */
  ids(): Iterable<string>;
  /**
   * The binding of `connectorId` to `agentProfileId` (undefined = not bound).
   * Absent: bindings are not known and not checked.
   */
  binding?(agentProfileId: string, connectorId: string): ConnectorBinding | undefined;
}

/** Connector types (`array`) → contract types (`any[]`). */
function contractType(type: string): string {
  if (type === 'array') return 'any[]';
  return type;
}

function recordFields(fields: Array<{ name: string; type: string; description?: string | undefined }>): Record<string, FieldSpec> {
  const out: Record<string, FieldSpec> = {};
  for (const f of fields) {
    out[f.name] = f.description ? { type: contractType(f.type), description: f.description } : { type: contractType(f.type) };
  }
  return out;
}

function deriveEndpoint(ep: z.output<typeof EndpointSchema>): EndpointContract {
  const inputs: Record<string, FieldSpec> = {};
  for (const p of [...(ep.parameters ?? []), ...(ep.variables ?? [])]) {
    const spec: FieldSpec = { type: contractType(p.type) };
    if (p.description) spec.description = p.description;
    if (p.default !== undefined) spec.default = p.default;
    if (p.required && p.default === undefined) spec.required = true;
    inputs[p.name] = spec;
  }
  const contract: EndpointContract = { inputs, outputs: {}, outputType: 'record_set' };
  if (ep.description) contract.description = ep.description;
  const hints = ep.response_mapping?.entity_extraction;
  if (hints && hints.length > 0) {
    contract.entityExtraction = hints.map((h) => ({
      field: h.field,
      entity_type: h.entity_type,
      ...(h.relationship_type ? { relationship_type: h.relationship_type } : {}),
    }));
  }
  const schema = ep.output_schema;
  if (schema && schema.type !== 'record_set') {
    contract.outputType = 'object';
    contract.outputs = recordFields([...schema.fields, ...schema.metadata_fields]);
    return contract;
  }
  let itemFields: Record<string, FieldSpec> | undefined;
  if (schema && schema.fields.length > 0) itemFields = recordFields(schema.fields);
  else if (ep.response_mapping?.fields) itemFields = recordFields(Object.keys(ep.response_mapping.fields).map((name) => ({ name, type: 'any' })));
  else if (ep.fields) itemFields = recordFields(ep.fields.map((f) => ({ name: f.field, type: f.type ?? 'any' })));
  contract.outputs = {
    results: itemFields ? { type: 'record[]', fields: itemFields } : { type: 'record[]' },
    count: { type: 'integer' },
    has_more: { type: 'boolean' },
    next_cursor: { type: 'string' },
    ...recordFields(schema?.metadata_fields ?? []),
  };
  return contract;
}

/** Derives the endpoint contracts of one connector definition; throws with the field path on bad input. */
export function deriveConnectorContract(definition: unknown): ConnectorContract {
  const parsed = ConnectorDefinitionSchema.safeParse(definition);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new Error(`invalid connector definition at ${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  const endpoints: Record<string, EndpointContract> = {};
  for (const [name, ep] of Object.entries(parsed.data.endpoints)) endpoints[name] = deriveEndpoint(ep);
  return { id: parsed.data.id, endpoints };
}

/**
 * A lookup over connector definitions (those of an agent profile, or all of
 * a user's); with `bindings`, steps that call through an agent profile are
 * checked against its bindings too.
 */
export function connectorLookup(definitions: Iterable<unknown>, bindings?: Iterable<ConnectorBinding>): ConnectorContractLookup {
  const byId = new Map<string, ConnectorContract>();
  for (const def of definitions) {
    const c = deriveConnectorContract(def);
    byId.set(c.id, c);
  }
  const lookup: ConnectorContractLookup = { connector: (id) => byId.get(id), ids: () => byId.keys() };
  if (bindings) {
    const bound = new Map<string, ConnectorBinding>();
    for (const b of bindings) bound.set(`${b.agentProfileId}\u0000${b.connectorId}`, b);
    lookup.binding = (profile, connector) => bound.get(`${profile}\u0000${connector}`);
  }
  return lookup;
}
