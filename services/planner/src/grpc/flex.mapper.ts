/** Wire ⇄ domain for the flex planner and the capability registry. */
import type { planner } from '@af/contracts';
import { facetToDefinition, planToWire, PlanWireError, type PlanGraph } from '@af/plan';
import { AppError } from '@af/service-kit';
import type { StoredFacet } from '../infra/facet.repository.js';
import type { StoredCapability } from '../infra/capability.repository.js';
import { ownerView, type Principal } from '../domain/registry/ownership.js';

/** The caller as the domain sees it (an absent principal is an empty user id: UNAUTHENTICATED downstream). */
export function principalOf(p: { userId: string; teamIds: string[] } | undefined): Principal {
  return { userId: p?.userId ?? '', teamIds: p?.teamIds ?? [] };
}

/** A JSON value as a google.protobuf.Struct payload (drops `undefined`, keeps `null`). */
export function toStruct(v: unknown): { [key: string]: any } {
  return JSON.parse(JSON.stringify(v ?? {})) as { [key: string]: any };
}

export function toWireCapability(c: StoredCapability, status: 'active' | 'inactive', now: Date): planner.Capability {
  const r = c.registration;
  return {
    capabilityId: r.capabilityId,
    agentType: r.agentType,
    version: r.version,
    displayName: r.displayName,
    summary: r.summary,
    inputFacets: r.inputContract,
    outputFacets: r.outputContract,
    status,
    instances: c.instances.map((i) => ({
      instanceId: i.instanceId,
      scopes: i.scopes,
      endpoint: i.endpoint ?? '',
      status: i.status === 'active' && (i.heartbeatTimeoutSeconds === undefined || now.getTime() - i.lastSeenAt.getTime() <= i.heartbeatTimeoutSeconds * 1000) ? 'active' : 'inactive',
      heartbeatTimeoutSeconds: i.heartbeatTimeoutSeconds ?? 0,
      registeredAt: i.registeredAt.toISOString(),
      lastSeenAt: i.lastSeenAt.toISOString(),
    })),
    registration: toStruct(r),
    inputSchema: toStruct(c.inputSchema),
    outputSchema: toStruct(c.outputSchema),
    catalogTags: c.catalogTags,
    collection: c.collection ?? '',
    registeredAt: c.registeredAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
    ...ownerView(c.owner),
    registeredBy: c.ownerUserId,
  };
}

export function toWireFacet(s: StoredFacet): planner.Facet {
  const f = s.facet;
  return {
    name: f.name,
    title: f.title,
    description: f.description,
    direction: f.direction,
    version: f.version,
    requiredByDefault: f.requiredByDefault,
    catalogTags: f.catalogTags,
    definition: toStruct(facetToDefinition(f)),
    collection: s.collection ?? '',
    ...ownerView(s.owner),
  };
}

/** The typed wire plan; a plan the wire cannot carry intact is bad input. */
export function wirePlan(plan: PlanGraph): planner.CompilePlaybookResponse['plan'] {
  try {
    return planToWire(plan);
  } catch (e) {
    if (e instanceof PlanWireError) throw AppError.invalid(`plan.${e.field}`, e.reason, 'invalid_plan');
    throw e;
  }
}
