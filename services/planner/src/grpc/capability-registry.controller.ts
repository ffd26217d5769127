import { Controller, Inject } from '@nestjs/common';
import { planner } from '@af/contracts';
import { AppError } from '@af/service-kit';
import type { CapabilityRegistry } from '../app/capability-registry.service.js';
import type { FacetCatalogStore } from '../app/facet-catalog.store.js';
import { principalOf, toWireCapability, toWireFacet } from './flex.mapper.js';

export const REGISTRY = Symbol('CapabilityRegistry');
export const FACETS = Symbol('FacetCatalogStore');

@Controller()
@planner.CapabilityRegistryServiceControllerMethods()
export class CapabilityRegistryController implements planner.CapabilityRegistryServiceController {
  constructor(
    @Inject(REGISTRY) private readonly registry: CapabilityRegistry,
    @Inject(FACETS) private readonly facets: FacetCatalogStore,
  ) {}

  private wire(c: Parameters<CapabilityRegistry['statusOf']>[0]): planner.Capability {
    return toWireCapability(c, this.registry.statusOf(c), new Date());
  }

  async registerCapability(req: planner.RegisterCapabilityRequest): Promise<planner.RegisterCapabilityResponse> {
    if (!req.registration) throw AppError.invalid('registration', 'is required: the capability registration payload');
    const { capability, created } = await this.registry.register(principalOf(req.principal), req.registration);
    return { capability: this.wire(capability), created };
  }

  async heartbeat(req: planner.HeartbeatRequest): Promise<planner.HeartbeatResponse> {
    return { capability: this.wire(await this.registry.heartbeat(principalOf(req.principal), req.capabilityId, req.instanceId || 'default')) };
  }

  async deregisterCapability(req: planner.DeregisterCapabilityRequest): Promise<planner.DeregisterCapabilityResponse> {
    return { capability: this.wire(await this.registry.deregister(principalOf(req.principal), req.capabilityId, req.instanceId || undefined)) };
  }

  async getCapability(req: planner.GetCapabilityRequest): Promise<planner.GetCapabilityResponse> {
    return { capability: this.wire(await this.registry.get(principalOf(req.principal), req.capabilityId)) };
  }

  async listCapabilities(req: planner.ListCapabilitiesRequest): Promise<planner.ListCapabilitiesResponse> {
    const list = await this.registry.list(principalOf(req.principal), { includeInactive: req.includeInactive, ...(req.catalogTag ? { catalogTag: req.catalogTag } : {}), ...(req.produces ? { produces: req.produces } : {}) });
    return { capabilities: list.map((c) => this.wire(c)) };
  }

  async upsertFacets(req: planner.UpsertFacetsRequest): Promise<planner.UpsertFacetsResponse> {
    const { facets, revision } = await this.facets.upsert(principalOf(req.principal), req.facets, req.collection || undefined, {
      ...(req.visibility ? { visibility: req.visibility } : {}),
      ...(req.teamId ? { teamId: req.teamId } : {}),
    });
    return { facets: facets.map(toWireFacet), catalogRevision: revision };
  }

  async listFacets(req: planner.ListFacetsRequest): Promise<planner.ListFacetsResponse> {
    const principal = principalOf(req.principal);
    if (!principal.userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
    const { catalog, collections, owners } = await this.facets.snapshot(principal);
    const facets = catalog.list(req.catalogTag || undefined).map((facet) => ({ facet, owner: owners.get(facet.name)!, ...(collections.get(facet.name) ? { collection: collections.get(facet.name)! } : {}) }));
    return { facets: facets.map(toWireFacet), catalogRevision: catalog.revision };
  }
}
