/** The graph store of this deployment: the resolution use case over Neo4j when NEO4J_URL is set, else over PostgreSQL. */
import type { ServiceKit } from '@af/service-kit';
import { GraphResolution } from '../app/graph-resolution.js';
import type { GraphStore } from '../app/ports.js';
import type { EntityResolutionConfig } from '../config.js';
import { Neo4jGraphStore } from './neo4j/neo4j-graph-store.js';
import { PgGraphStore } from './pg-graph-store.js';

export async function graphStore(kit: ServiceKit<EntityResolutionConfig>, config: EntityResolutionConfig): Promise<GraphStore> {
  if (!config.NEO4J_URL) return new GraphResolution(new PgGraphStore(kit.db));
  const store = await Neo4jGraphStore.connect({
    url: config.NEO4J_URL,
    ...(config.NEO4J_USER ? { user: config.NEO4J_USER } : {}),
    ...(config.NEO4J_PASSWORD ? { password: config.NEO4J_PASSWORD } : {}),
    ...(config.NEO4J_DATABASE ? { database: config.NEO4J_DATABASE } : {}),
  });
  kit.onClose(() => store.close());
  return new GraphResolution(store);
}
