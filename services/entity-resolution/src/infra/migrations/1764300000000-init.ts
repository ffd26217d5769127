import { OUTBOX_DDL } from '@af/service-kit';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The knowledge graph of every owner namespace. Facts (names, aliases, ids,
 * relationships, provenance) stay on the entity that recorded them; a merge
 * only sets `parent_id` (and the denormalised `root_id` of the merged tree),
 * so reversing it restores the prior graph exactly.
 */
export class Init1764300000000 implements MigrationInterface {
  name = 'Init1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE entities (
        id uuid PRIMARY KEY,
        owner text NOT NULL,
        type text NOT NULL,
        subtype text NOT NULL DEFAULT '',
        name text NOT NULL,
        canonical_name text NOT NULL,
        -- What the scorer compares (NormalisedRecord), kept so candidates need no re-normalising.
        normalised jsonb NOT NULL,
        confidence real NOT NULL DEFAULT 1,
        parent_id uuid REFERENCES entities(id),
        root_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX entities_owner_root ON entities (owner, root_id);
      CREATE INDEX entities_owner_canonical ON entities (owner, canonical_name);
      CREATE INDEX entities_owner_created ON entities (owner, created_at);
      CREATE INDEX entities_parent ON entities (parent_id) WHERE parent_id IS NOT NULL;

      CREATE TABLE entity_aliases (
        entity_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        owner text NOT NULL,
        alias text NOT NULL,
        PRIMARY KEY (entity_id, alias)
      );
      CREATE INDEX entity_aliases_owner ON entity_aliases (owner, lower(alias));

      CREATE TABLE entity_external_ids (
        entity_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        owner text NOT NULL,
        kind text NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (entity_id, kind)
      );
      CREATE INDEX entity_external_ids_lookup ON entity_external_ids (owner, kind, value);

      -- Blocking keys (see domain/blocking.ts): candidates are read through these.
      CREATE TABLE entity_blocks (
        owner text NOT NULL,
        key text NOT NULL,
        entity_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE
      );
      CREATE INDEX entity_blocks_lookup ON entity_blocks (owner, key);

      CREATE TABLE relationships (
        id uuid PRIMARY KEY,
        owner text NOT NULL,
        source_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        target_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        type text NOT NULL,
        properties jsonb NOT NULL DEFAULT '{}',
        confidence real NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX relationships_owner_source ON relationships (owner, source_id);
      CREATE INDEX relationships_owner_target ON relationships (owner, target_id);

      -- Where each fact came from: connector, endpoint, run, node, record index, time.
      CREATE TABLE provenance (
        id bigserial PRIMARY KEY,
        owner text NOT NULL,
        entity_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        source text NOT NULL DEFAULT '',
        connector text NOT NULL DEFAULT '',
        endpoint text NOT NULL DEFAULT '',
        run_id text NOT NULL DEFAULT '',
        node_id text NOT NULL DEFAULT '',
        record_index integer,
        retrieved_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX provenance_entity ON provenance (entity_id);

      CREATE TABLE resolution_log (
        id uuid PRIMARY KEY,
        owner text NOT NULL,
        execution_id text NOT NULL DEFAULT '',
        action text NOT NULL CHECK (action IN ('auto_merge','user_merge','user_split','create_new','flag_review')),
        source_entity_id uuid,
        source_entity_name text NOT NULL,
        source_entity_type text NOT NULL DEFAULT '',
        target_entity_id uuid,
        target_entity_name text NOT NULL DEFAULT '',
        confidence real NOT NULL DEFAULT 0,
        match_method text NOT NULL DEFAULT '',
        match_details jsonb NOT NULL DEFAULT '{}',
        -- The merge link this decision made (or a split removed): child root → parent root.
        link_child uuid,
        link_parent uuid,
        is_reversible boolean NOT NULL DEFAULT false,
        reversed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      );
      CREATE INDEX resolution_log_owner ON resolution_log (owner, created_at DESC);
      CREATE INDEX resolution_log_link ON resolution_log (owner, link_child) WHERE reversed_at IS NULL;

      CREATE TABLE review_queue (
        id uuid PRIMARY KEY,
        owner text NOT NULL,
        execution_id text NOT NULL DEFAULT '',
        source_entity_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        source_entity_name text NOT NULL,
        source_entity_type text NOT NULL,
        candidate_entity_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
        candidate_entity_name text NOT NULL,
        confidence real NOT NULL,
        match_details jsonb NOT NULL DEFAULT '{}',
        context jsonb NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','approved_merge','rejected','skipped')),
        reviewed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      );
      CREATE INDEX review_queue_owner ON review_queue (owner, status, created_at DESC);

      CREATE TABLE discoveries (
        id uuid PRIMARY KEY,
        owner text NOT NULL,
        execution_id text NOT NULL DEFAULT '',
        discovery_type text NOT NULL,
        entity_name text NOT NULL DEFAULT '',
        entity_type text NOT NULL DEFAULT '',
        entity_id uuid,
        relationship_type text NOT NULL DEFAULT '',
        related_entity_name text NOT NULL DEFAULT '',
        source_connector text NOT NULL DEFAULT '',
        source_endpoint text NOT NULL DEFAULT '',
        confidence real NOT NULL DEFAULT 1,
        details jsonb NOT NULL DEFAULT '{}',
        discovered_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp())
      );
      CREATE INDEX discoveries_owner ON discoveries (owner, discovered_at DESC);
      CREATE INDEX discoveries_execution ON discoveries (owner, execution_id);

      -- Communities found by analyze_graph (the graph schema's EntityCluster).
      CREATE TABLE entity_clusters (
        id uuid PRIMARY KEY,
        owner text NOT NULL,
        cluster_id integer NOT NULL,
        algorithm text NOT NULL,
        member_ids uuid[] NOT NULL,
        label text NOT NULL DEFAULT '',
        computed_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX entity_clusters_owner ON entity_clusters (owner, algorithm, computed_at DESC);
      ${OUTBOX_DDL}
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'DROP TABLE IF EXISTS entity_clusters, discoveries, review_queue, resolution_log, provenance, relationships, entity_blocks, entity_external_ids, entity_aliases, entities, outbox CASCADE',
    );
  }
}
