/**
 * The knowledge graph's Cypher schema (Neo4j 5 syntax): labels, constraints,
 * indexes and the full-text index on names and aliases. Applied at start-up;
 * every statement is `IF NOT EXISTS`, so applying it again changes nothing.
 *
 * Labels: `Entity` (one per mention; merged trees read through `root_id`,
 * linked by `MERGED_INTO`), `DataSource` (provenance, `DISCOVERED_BY`),
 * `EntityCluster` (communities, `MEMBER_OF_CLUSTER`), `Document`, and the
 * service's own `BlockKey` (blocking, `BLOCKS`), `ResolutionLog`,
 * `ReviewItem` and `Discovery`. Every node carries the owner's `user_id`.
 *
 * Two departures from a literal reading of the schema, both forced:
 * - (canonical_name, user_id) is indexed, not unique: two different people
 *   may share a name in one namespace, and every mention keeps its own node
 *   so that a merge can be reversed exactly.
 * - Neo4j properties cannot be maps, so `external_ids` is stored as
 *   `ext_ein`, `ext_fec_id`, `ext_cik` (each indexed) and read back as a map.
 */
export const NEO4J_SCHEMA: readonly string[] = [
  'CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE',
  'CREATE INDEX entity_name IF NOT EXISTS FOR (e:Entity) ON (e.name)',
  'CREATE INDEX entity_canonical IF NOT EXISTS FOR (e:Entity) ON (e.canonical_name, e.user_id)',
  'CREATE INDEX entity_type IF NOT EXISTS FOR (e:Entity) ON (e.type)',
  'CREATE INDEX entity_subtype IF NOT EXISTS FOR (e:Entity) ON (e.subtype)',
  'CREATE INDEX entity_user IF NOT EXISTS FOR (e:Entity) ON (e.user_id)',
  'CREATE INDEX entity_root IF NOT EXISTS FOR (e:Entity) ON (e.user_id, e.root_id)',
  'CREATE INDEX entity_ext_ein IF NOT EXISTS FOR (e:Entity) ON (e.ext_ein)',
  'CREATE INDEX entity_ext_fec_id IF NOT EXISTS FOR (e:Entity) ON (e.ext_fec_id)',
  'CREATE INDEX entity_ext_cik IF NOT EXISTS FOR (e:Entity) ON (e.ext_cik)',
  'CREATE INDEX document_id IF NOT EXISTS FOR (d:Document) ON (d.id)',
  'CREATE INDEX document_user IF NOT EXISTS FOR (d:Document) ON (d.user_id)',
  'CREATE INDEX datasource_execution IF NOT EXISTS FOR (ds:DataSource) ON (ds.execution_id)',
  'CREATE INDEX datasource_connector IF NOT EXISTS FOR (ds:DataSource) ON (ds.connector_id)',
  'CREATE CONSTRAINT block_key IF NOT EXISTS FOR (b:BlockKey) REQUIRE (b.user_id, b.key) IS UNIQUE',
  'CREATE CONSTRAINT resolution_log_id IF NOT EXISTS FOR (l:ResolutionLog) REQUIRE l.id IS UNIQUE',
  'CREATE INDEX resolution_log_user IF NOT EXISTS FOR (l:ResolutionLog) ON (l.user_id, l.created_at)',
  'CREATE CONSTRAINT review_item_id IF NOT EXISTS FOR (r:ReviewItem) REQUIRE r.id IS UNIQUE',
  'CREATE INDEX review_item_user IF NOT EXISTS FOR (r:ReviewItem) ON (r.user_id, r.status)',
  'CREATE CONSTRAINT discovery_id IF NOT EXISTS FOR (d:Discovery) REQUIRE d.id IS UNIQUE',
  'CREATE INDEX discovery_user IF NOT EXISTS FOR (d:Discovery) ON (d.user_id, d.execution_id)',
  'CREATE INDEX entity_cluster_user IF NOT EXISTS FOR (c:EntityCluster) ON (c.user_id, c.algorithm)',
  // Case-insensitive, accent-folding search on names and aliases.
  "CREATE FULLTEXT INDEX entityFullText IF NOT EXISTS FOR (e:Entity) ON EACH [e.name, e.canonical_name, e.aliases_text] OPTIONS { indexConfig: { `fulltext.analyzer`: 'standard-folding' } }",
];

/** Relationship types are interpolated into Cypher (types cannot be parameters), so only this shape is ever accepted. */
export const RELATIONSHIP_TYPE = /^[A-Z][A-Z0-9_]{0,63}$/;
