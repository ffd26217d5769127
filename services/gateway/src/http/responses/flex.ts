/** Answers of the flex registry, catalog, planning and debugging routes (/api/v1/flex). */
import { z } from 'zod';
import { component, JsonObject, timestamp } from './common.js';

const Instance = z.strictObject({
  instanceId: z.string(),
  scopes: z.array(z.string()),
  endpoint: z.string(),
  status: z.string(),
  heartbeatTimeoutSeconds: z.number(),
  registeredAt: z.string(),
  lastSeenAt: z.string(),
});

export const Capability = component(
  'Capability',
  z.strictObject({
    capabilityId: z.string(),
    agentType: z.string(),
    version: z.string(),
    displayName: z.string(),
    summary: z.string(),
    inputContract: z.array(z.string()).meta({ description: 'Input facet names' }),
    outputContract: z.array(z.string()).meta({ description: 'Output facet names' }),
    status: z.string().meta({ description: 'active | inactive' }),
    instances: z.array(Instance),
    registration: JsonObject,
    inputSchema: JsonObject,
    outputSchema: JsonObject,
    catalogTags: z.array(z.string()),
    collection: z.string().nullable(),
    registeredAt: timestamp,
    updatedAt: timestamp,
    visibility: z.string().meta({ description: 'private | team | shared' }),
    ownerId: z.string().nullable(),
    registeredBy: z.string(),
  }),
  { description: 'A registered capability with its instances' },
);

export const Facet = component(
  'Facet',
  z.looseObject({
    name: z.string().optional(),
    collection: z.string().nullable(),
    visibility: z.string(),
    ownerId: z.string().nullable(),
  }),
  { description: 'A facet definition (its own fields) with where it lives' },
);

export const PlanResult = component(
  'FlexPlanResult',
  z.strictObject({
    accepted: z.boolean(),
    planVersion: z.number().int(),
    plan: JsonObject.nullable().meta({ description: 'A PlanGraph in IR form, enums by name' }),
    events: z.array(z.strictObject({ type: z.string(), payload: JsonObject })),
    diagnostics: JsonObject,
  }),
  { description: 'A planned TaskEnvelope' },
);

export const CapabilityChange = z.strictObject({ ok: z.literal(true), created: z.boolean().optional().meta({ description: 'register: true (201) when new, false (200) when updated' }), capability: Capability });
export const CapabilityAnswer = z.strictObject({ capability: Capability });
export const CapabilityList = z.strictObject({ capabilities: z.array(Capability) });
export const FacetList = z.strictObject({ facets: z.array(Facet), catalogRevision: z.string() });
export const SandboxMetadata = z.strictObject({
  facets: z.array(Facet),
  catalogRevision: z.string(),
  capabilities: z.strictObject({ active: z.array(Capability), all: z.array(Capability) }),
  capabilityCatalog: z.array(z.strictObject({ capabilityId: z.string(), displayName: z.string(), summary: z.string(), kind: z.string(), inputFacets: z.array(z.string()), outputFacets: z.array(z.string()) })),
  templates: z.array(z.unknown()),
});
export const FlexRunDebug = z.strictObject({
  ok: z.literal(true),
  run: JsonObject.meta({ description: '{runId, status, planVersion, inputs, error, createdAt, updatedAt}, secret-looking keys redacted' }),
  output: z.unknown(),
  goalConditionResults: z.array(JsonObject),
  planVersions: z.array(z.strictObject({ seq: z.number().int(), type: z.string(), timestamp: z.string(), version: z.unknown().optional() })),
  latestSnapshot: z.strictObject({ version: z.number().int(), pendingNodeIds: z.array(z.string()) }),
  nodes: z.array(z.strictObject({
    nodeId: z.string(),
    status: z.string(),
    attempt: z.number().int(),
    output: z.unknown(),
    error: z.string().nullable(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })),
});
