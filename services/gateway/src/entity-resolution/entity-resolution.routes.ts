/** The knowledge routes as the OpenAPI document lists them. */
import * as R from '../http/responses/index.js';
import type { RouteDoc } from '../http/responses/document.js';
import { AnalyzeBody } from './entity-resolution.schemas.js';

const UNDEPLOYED = { '503': 'The deployment has no entity-resolution (ENTITY_RESOLUTION_URL unset)' };
const DECIDED = { ...UNDEPLOYED, '409': 'The review is no longer pending' };

export const ENTITY_RESOLUTION_ROUTES: RouteDoc[] = [
  {
    method: 'get' as const,
    path: '/api/agent-factory/entity-reviews',
    response: R.EntityReviewList,
    summary:
      'Entity reviews of ambiguous matches (?status=pending|approved_merge|rejected|skipped|auto_merged&limit=), newest first',
    errors: UNDEPLOYED,
  },
  {
    method: 'post' as const,
    path: '/api/agent-factory/entity-reviews/{id}/approve',
    response: R.EntityReviewDecision,
    summary: 'Merge the pair (logged user_merge, reversible)',
    status: '200',
    errors: DECIDED,
  },
  {
    method: 'post' as const,
    path: '/api/agent-factory/entity-reviews/{id}/reject',
    response: R.EntityReviewDecision,
    summary: 'Keep the pair apart',
    status: '200',
    errors: DECIDED,
  },
  {
    method: 'post' as const,
    path: '/api/agent-factory/entity-reviews/{id}/not-a-match',
    response: R.EntityReviewDecision,
    summary: 'Keep the pair apart and record that they are not a match',
    status: '200',
    errors: DECIDED,
  },
  {
    method: 'get' as const,
    path: '/api/agent-factory/entity-resolution/log',
    response: R.ResolutionLog,
    summary: 'Resolution audit log (?action=auto_merge|user_merge|user_split|create_new|flag_review&limit=)',
    errors: UNDEPLOYED,
  },
  {
    method: 'post' as const,
    path: '/api/agent-factory/entity-resolution/reverse/{id}',
    response: R.ResolutionLogAnswer,
    summary: 'Reverse a merge: the graph returns to its state before it, later merges kept',
    status: '200',
    errors: { ...UNDEPLOYED, '409': 'Already reversed, or not a reversible decision' },
  },
  {
    method: 'post' as const,
    path: '/api/agent-factory/graph/entities/{id}/split',
    response: R.ResolutionLogAnswer,
    summary:
      "Split a member (an id of an entity's `members`) out of its entity: logged user_split, reversible",
    status: '200',
    errors: { ...UNDEPLOYED, '409': 'The member is not merged into another entity' },
  },
  {
    method: 'get' as const,
    path: '/api/agent-factory/discoveries',
    response: R.DiscoveryList,
    summary: 'Discoveries of your runs (?discovery_type=&execution_id=&limit=)',
    errors: UNDEPLOYED,
  },
  {
    method: 'get' as const,
    path: '/api/agent-factory/discoveries/stats',
    response: R.DiscoveryStats,
    summary: 'Discovery counts by type and entity type; entity, relationship and pending-review counts',
    errors: UNDEPLOYED,
  },
  {
    method: 'get' as const,
    path: '/api/agent-factory/executions/{id}/discoveries',
    response: R.DiscoveryList,
    summary: 'Discoveries of one of your runs',
    errors: UNDEPLOYED,
  },
  {
    method: 'get' as const,
    path: '/api/agent-factory/graph/search',
    response: R.EntitySearch,
    summary: 'Entities by name or alias (?q=&types=PERSON,ORG&limit=)',
    errors: UNDEPLOYED,
  },
  {
    method: 'get' as const,
    path: '/api/agent-factory/graph/entities/{id}/neighbourhood',
    response: R.Neighbourhood,
    summary: 'An entity and its neighbours (?max_hops=&max_nodes=)',
    errors: UNDEPLOYED,
  },
  {
    method: 'post' as const,
    path: '/api/agent-factory/graph/analyze',
    response: R.GraphAnalysis,
    summary:
      'pagerank, community_detection, betweenness, shortest_path or connected_components over your graph',
    body: AnalyzeBody,
    status: '200',
    errors: UNDEPLOYED,
  },
];
