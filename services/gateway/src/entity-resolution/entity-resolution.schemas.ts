/** Query and body schemas of the knowledge routes (parsed at the boundary; failures name the field). */
import { z } from 'zod';

const limit = z.coerce.number().int().min(1).max(500).optional();

export const ListReviewsQuery = z.strictObject({
  status: z.enum(['pending', 'approved_merge', 'rejected', 'skipped', 'auto_merged']).optional(),
  limit,
});
export const ListLogQuery = z.strictObject({
  action: z.enum(['auto_merge', 'user_merge', 'user_split', 'create_new', 'flag_review']).optional(),
  limit,
});
export const ListDiscoveriesQuery = z.strictObject({
  discovery_type: z
    .enum(['new_entity', 'new_relationship', 'entity_merge', 'new_external_id', 'pattern_detected'])
    .optional(),
  execution_id: z.string().max(100).optional(),
  limit,
});
export const SearchQuery = z.strictObject({
  q: z.string().trim().min(1).max(500),
  types: z.string().max(200).optional(),
  limit,
});
export const NeighbourhoodQuery = z.strictObject({
  max_hops: z.coerce.number().int().min(0).max(5).optional(),
  max_nodes: z.coerce.number().int().min(1).optional(),
});
export const AnalyzeBody = z.strictObject({
  algorithm: z.enum([
    'pagerank',
    'community_detection',
    'betweenness',
    'shortest_path',
    'connected_components',
  ]),
  entities: z.array(z.string().min(1).max(500)).max(1000).optional(),
  max_nodes: z.number().int().min(1).optional(),
});
