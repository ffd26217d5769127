/**
 * Wire messages of the flex routes → the JSON /api/v1/flex answers
 * (camelCase, the flex spec's names). Protobuf enums never leave as numbers:
 * a plan is shown in its IR form (`kind: 'transform'`, `runContext:
 * 'interactive'`, …), the form POST /runs and the planner take.
 */
import { planFromWire, type PlanGraphWire } from '@af/plan';
import type { planner } from '@af/contracts';
import type { z } from 'zod';
import type * as R from './responses/index.js';

export function capabilityView(c: planner.Capability): z.infer<typeof R.Capability> {
  return {
    capabilityId: c.capabilityId,
    agentType: c.agentType,
    version: c.version,
    displayName: c.displayName,
    summary: c.summary,
    inputContract: c.inputFacets,
    outputContract: c.outputFacets,
    status: c.status,
    instances: c.instances,
    registration: c.registration ?? {},
    inputSchema: c.inputSchema ?? {},
    outputSchema: c.outputSchema ?? {},
    catalogTags: c.catalogTags,
    collection: c.collection || null,
    registeredAt: c.registeredAt,
    updatedAt: c.updatedAt,
    visibility: c.visibility,
    ownerId: c.ownerId || null,
    registeredBy: c.registeredBy,
  };
}

export function facetView(f: planner.Facet): z.infer<typeof R.Facet> {
  return { ...(f.definition ?? {}), collection: f.collection || null, visibility: f.visibility, ownerId: f.ownerId || null };
}

/** POST /flex/plan: `{accepted, planVersion, plan, events, diagnostics}`, the plan with its enums as names. */
export function planResultView(r: planner.PlanTaskResponse): z.infer<typeof R.PlanResult> {
  return {
    accepted: r.accepted,
    planVersion: r.planVersion,
    plan: r.plan ? ((planFromWire(r.plan as unknown as PlanGraphWire) ?? null) as Record<string, unknown> | null) : null,
    events: r.events.map((e) => ({ type: e.type, payload: e.payload ?? {} })),
    diagnostics: r.diagnostics ?? {},
  };
}
