import { Controller, Inject } from '@nestjs/common';
import { planner } from '@af/contracts';
import { AppError } from '@af/service-kit';
import type { CapabilityRegistry } from '../app/capability-registry.service.js';
import type { FacetCatalogStore } from '../app/facet-catalog.store.js';
import { toWireCapability, toWireFacet } from './flex.mapper.js';

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
    const { capability, created } = await this.registry.register(req.principal?.userId ?? '', req.registration);
    return { capability: this.wire(capability), created };
  }

  async heartbeat(req: planner.HeartbeatRequest): Promise<planner.HeartbeatResponse> {
    return { capability: this.wire(await this.registry.heartbeat(req.principal?.userId ?? '', req.capabilityId, req.instanceId || 'default')) };
  }

  async deregisterCapability(req: planner.DeregisterCapabilityRequest): Promise<planner.DeregisterCapabilityResponse> {
    return { capability: this.wire(await this.registry.deregister(req.principal?.userId ?? '', req.capabilityId, req.instanceId || undefined)) };
  }

  async getCapability(req: planner.GetCapabilityRequest): Promise<planner.GetCapabilityResponse> {
    return { capability: this.wire(await this.registry.get(req.capabilityId)) };
  }

  async listCapabilities(req: planner.ListCapabilitiesRequest): Promise<planner.ListCapabilitiesResponse> {
    const list = await this.registry.list({ includeInactive: req.includeInactive, ...(req.catalogTag ? { catalogTag: req.catalogTag } : {}), ...(req.produces ? { produces: req.produces } : {}) });
    return { capabilities: list.map((c) => this.wire(c)) };
  }

  async upsertFacets(req: planner.UpsertFacetsRequest): Promise<planner.UpsertFacetsResponse> {
    const { facets, revision } = await this.facets.upsert(req.principal?.userId ?? '', req.facets, req.collection || undefined);
    return { facets: facets.map(toWireFacet), catalogRevision: revision };
  }

  async listFacets(req: planner.ListFacetsRequest): Promise<planner.ListFacetsResponse> {
    const { catalog, collections } = await this.facets.snapshot();
    const facets = catalog.list(req.catalogTag || undefined).map((facet) => ({ facet, ...(collections.get(facet.name) ? { collection: collections.get(facet.name)! } : {}) }));
    return { facets: facets.map(toWireFacet), catalogRevision: catalog.revision };
  }
}
