/**
 * The knowledge routes in front of entity-resolution: the entity review
 * queue (approve / reject / not a match), the resolution log and reversal,
 * discoveries, and graph search / neighbourhood / analysis. Everything is in
 * the caller's namespace: another user's ids are 404; reversing a reversed
 * decision or deciding a decided review is 409.
 */
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import type { common, entity } from '@af/contracts';
import { AppError, call } from '@af/service-kit';
import { AuthGuard, CurrentUser } from '../http/auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../http/deps.js';
import { parseBody } from '../http/validation.js';
import {
  AnalyzeBody,
  ListDiscoveriesQuery,
  ListLogQuery,
  ListReviewsQuery,
  NeighbourhoodQuery,
  SearchQuery,
} from './entity-resolution.schemas.js';
import {
  discoveryView,
  entityView,
  logView,
  relationshipView,
  reviewView,
} from './entity-resolution.views.js';

export const ER_CLIENT = Symbol('EntityResolutionClient');

/** The client, or 503 naming the missing setting when the deployment has no entity-resolution. */
function need(client: entity.EntityServiceClient | undefined): entity.EntityServiceClient {
  if (!client)
    throw new AppError(
      'UNAVAILABLE',
      'the knowledge graph is not deployed here (ENTITY_RESOLUTION_URL is not set)',
      { retryable: false },
    );
  return client;
}

@Controller('api/agent-factory')
@UseGuards(AuthGuard)
export class EntityResolutionController {
  constructor(
    @Inject(ER_CLIENT) private readonly client: entity.EntityServiceClient | undefined,
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
  ) {}

  /** Pending entity reviews (?status=&limit=), newest first. */
  @Get('entity-reviews')
  async reviews(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(ListReviewsQuery, query);
    const res = await call(
      need(this.client).listReviews({ principal, status: q.status ?? '', limit: q.limit ?? 0 }),
    );
    return { reviews: res.reviews.map(reviewView) };
  }

  @Post('entity-reviews/:id/approve')
  @HttpCode(200)
  approve(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    return this.decide(principal, id, 'approve');
  }

  @Post('entity-reviews/:id/reject')
  @HttpCode(200)
  reject(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    return this.decide(principal, id, 'reject');
  }

  @Post('entity-reviews/:id/not-a-match')
  @HttpCode(200)
  notAMatch(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    return this.decide(principal, id, 'not_a_match');
  }

  private async decide(principal: common.Principal, id: string, decision: string) {
    const res = await call(need(this.client).decideReview({ principal, reviewId: id, decision }));
    return { review: reviewView(res.review!), log_entry: res.logEntry ? logView(res.logEntry) : null };
  }

  /** The resolution audit log (?action=&limit=), newest first. */
  @Get('entity-resolution/log')
  async log(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(ListLogQuery, query);
    const res = await call(
      need(this.client).listResolutionLog({ principal, action: q.action ?? '', limit: q.limit ?? 0 }),
    );
    return { entries: res.entries.map(logView) };
  }

  /** Reverse a merge: the graph returns to its state before it (409 when already reversed). */
  @Post('entity-resolution/reverse/:id')
  @HttpCode(200)
  async reverse(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const res = await call(need(this.client).reverseDecision({ principal, logId: id }));
    return { entry: logView(res.entry!) };
  }

  /** Split a member (an id from an entity's `members`) out of its entity: logged user_split, reversible. */
  @Post('graph/entities/:id/split')
  @HttpCode(200)
  async split(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const res = await call(need(this.client).splitEntity({ principal, memberId: id }));
    return { entry: logView(res.entry!) };
  }

  @Get('discoveries')
  async discoveries(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(ListDiscoveriesQuery, query);
    const res = await call(
      need(this.client).listDiscoveries({
        principal,
        executionId: q.execution_id ?? '',
        discoveryType: q.discovery_type ?? '',
        limit: q.limit ?? 0,
      }),
    );
    return { discoveries: res.discoveries.map(discoveryView) };
  }

  @Get('discoveries/stats')
  async stats(@CurrentUser() principal: common.Principal) {
    const s = await call(need(this.client).discoveryStats({ principal }));
    const num = (m: Record<string, string>) =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Number(v)]));
    return {
      total: Number(s.total),
      by_type: num(s.byType),
      by_entity_type: num(s.byEntityType),
      entities: Number(s.entities),
      relationships: Number(s.relationships),
      pending_reviews: Number(s.pendingReviews),
    };
  }

  /** Discoveries of one of your runs (404 for a run that is not yours). */
  @Get('executions/:id/discoveries')
  async runDiscoveries(
    @CurrentUser() principal: common.Principal,
    @Param('id') id: string,
    @Query() query: unknown,
  ) {
    const q = parseBody(ListDiscoveriesQuery.omit({ execution_id: true }), query);
    await call(this.deps.clients.orchestrator.getRun({ principal, runId: id }));
    const res = await call(
      need(this.client).listDiscoveries({
        principal,
        executionId: id,
        discoveryType: q.discovery_type ?? '',
        limit: q.limit ?? 0,
      }),
    );
    return { discoveries: res.discoveries.map(discoveryView) };
  }

  /** Entities by name or alias (?q=&types=PERSON,ORG&limit=). */
  @Get('graph/search')
  async search(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(SearchQuery, query);
    const types = (q.types ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const res = await call(
      need(this.client).searchGraph({ principal, query: q.q, entityTypes: types, limit: q.limit ?? 0 }),
    );
    return { entities: res.entities.map(entityView) };
  }

  /** An entity and its neighbours within ?max_hops= (default 1), at most ?max_nodes=. */
  @Get('graph/entities/:id/neighbourhood')
  async neighbourhood(
    @CurrentUser() principal: common.Principal,
    @Param('id') id: string,
    @Query() query: unknown,
  ) {
    const q = parseBody(NeighbourhoodQuery, query);
    const res = await call(
      need(this.client).getNeighbourhood({
        principal,
        entityId: id,
        maxHops: q.max_hops ?? 1,
        maxNodes: q.max_nodes ?? 0,
      }),
    );
    return { entities: res.entities.map(entityView), relationships: res.relationships.map(relationshipView) };
  }

  /** pagerank, community_detection, betweenness, shortest_path or connected_components over your graph (or around `entities`). */
  @Post('graph/analyze')
  @HttpCode(200)
  async analyze(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const b = parseBody(AnalyzeBody, body);
    const res = await call(
      need(this.client).analyzeGraph({
        principal,
        algorithm: b.algorithm,
        entities: b.entities ?? [],
        maxNodes: b.max_nodes ?? 0,
      }),
    );
    return { results: res.results, node_count: res.nodeCount, edge_count: res.edgeCount };
  }
}
