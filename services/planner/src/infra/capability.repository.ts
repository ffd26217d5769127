/**
 * SQL of the capability registry (tables `flex_capabilities` and
 * `flex_capability_instances`). Parameterised statements only; writes take
 * the caller's transaction so the outbox event commits with them.
 */
import { sqlRows, type Queryable } from '@af/service-kit';
import type { CapabilityRegistration, JsonSchema } from '@af/plan';
import type { CapabilityRecord, InstanceRecord } from '../domain/registry/capability-record.js';

/** A record as stored: the domain record plus ownership and compiled contracts. */
export interface StoredCapability extends CapabilityRecord {
  /** Owner key (`user:<id>`, `team:<id>`, `shared`): the id resolves per owner. */
  owner: string;
  /** The user who registered it last. */
  ownerUserId: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  catalogTags: string[];
  collection?: string;
}

export interface CapabilityUpsert {
  registration: CapabilityRegistration;
  owner: string;
  ownerUserId: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
}

export interface StaleInstance {
  owner: string;
  capabilityId: string;
  instanceId: string;
  lastSeenAt: Date;
}

const SELECT_CAPABILITIES = `SELECT c.*, COALESCE(json_agg(i ORDER BY i.instance_id) FILTER (WHERE i.instance_id IS NOT NULL), '[]') AS instances
  FROM flex_capabilities c LEFT JOIN flex_capability_instances i ON i.owner = c.owner AND i.capability_id = c.capability_id`;
const GROUP = 'GROUP BY c.owner, c.capability_id';

export class CapabilityRepository {
  constructor(private readonly db: Queryable) {}

  async loadAll(q: Queryable = this.db): Promise<StoredCapability[]> {
    const rows = await sqlRows(q, `${SELECT_CAPABILITIES} ${GROUP} ORDER BY c.capability_id, c.owner`);
    return rows.map(toStored);
  }

  async load(owner: string, capabilityId: string, q: Queryable = this.db): Promise<StoredCapability | undefined> {
    const rows = await sqlRows(q, `${SELECT_CAPABILITIES} WHERE c.owner = $1 AND c.capability_id = $2 ${GROUP}`, [owner, capabilityId]);
    return rows[0] ? toStored(rows[0]) : undefined;
  }

  /** Which of `owners` hold `capabilityId`, locking those rows for the rest of the transaction. */
  async lockOwners(q: Queryable, capabilityId: string, owners: readonly string[]): Promise<string[]> {
    const rows = await sqlRows<{ owner: string }>(q, 'SELECT owner FROM flex_capabilities WHERE capability_id = $1 AND owner = ANY($2::text[]) FOR UPDATE', [capabilityId, owners]);
    return rows.map((r) => r.owner);
  }

  /** Upserts the capability and the registering instance; `created` when the instance is new. */
  async upsert(q: Queryable, u: CapabilityUpsert, heartbeatTimeoutSeconds: number | undefined): Promise<{ created: boolean }> {
    const r = u.registration;
    const tags = r.metadata?.catalogTags ?? [];
    await sqlRows(
      q,
      `INSERT INTO flex_capabilities (capability_id, owner_user_id, agent_type, version, display_name, input_facets, output_facets, registration, input_schema, output_schema, catalog_tags, collection, owner)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (owner, capability_id) DO UPDATE SET owner_user_id = EXCLUDED.owner_user_id, agent_type = EXCLUDED.agent_type, version = EXCLUDED.version, display_name = EXCLUDED.display_name,
         input_facets = EXCLUDED.input_facets, output_facets = EXCLUDED.output_facets, registration = EXCLUDED.registration,
         input_schema = EXCLUDED.input_schema, output_schema = EXCLUDED.output_schema, catalog_tags = EXCLUDED.catalog_tags,
         collection = EXCLUDED.collection, updated_at = now()`,
      [r.capabilityId, u.ownerUserId, r.agentType, r.version, r.displayName, r.inputContract, r.outputContract, JSON.stringify(r), JSON.stringify(u.inputSchema), JSON.stringify(u.outputSchema), tags, r.metadata?.collection ?? null, u.owner],
    );
    const rows = await sqlRows<{ created: boolean }>(
      q,
      `INSERT INTO flex_capability_instances (capability_id, instance_id, scopes, endpoint, heartbeat_timeout_seconds, status, owner)
       VALUES ($1, $2, $3, $4, $5, 'active', $6)
       ON CONFLICT (owner, capability_id, instance_id) DO UPDATE SET scopes = EXCLUDED.scopes, endpoint = EXCLUDED.endpoint,
         heartbeat_timeout_seconds = EXCLUDED.heartbeat_timeout_seconds, status = 'active', last_seen_at = now()
       RETURNING (xmax = 0) AS created`,
      [r.capabilityId, r.instanceId, r.scopes, r.endpoint ?? null, heartbeatTimeoutSeconds ?? null, u.owner],
    );
    return { created: rows[0]?.created === true };
  }

  /** Marks the instance seen now (and active again); undefined when it is not registered. */
  async heartbeat(q: Queryable, owner: string, capabilityId: string, instanceId: string): Promise<{ lastSeenAt: Date; wasActive: boolean } | undefined> {
    const rows = await sqlRows<{ last_seen_at: Date; was_active: boolean }>(
      q,
      `UPDATE flex_capability_instances i SET last_seen_at = now(), status = 'active'
       FROM (SELECT status AS old_status FROM flex_capability_instances WHERE owner = $3 AND capability_id = $1 AND instance_id = $2 FOR UPDATE) old
       WHERE i.owner = $3 AND i.capability_id = $1 AND i.instance_id = $2
       RETURNING i.last_seen_at, old.old_status = 'active' AS was_active`,
      [capabilityId, instanceId, owner],
    );
    return rows[0] ? { lastSeenAt: rows[0].last_seen_at, wasActive: rows[0].was_active } : undefined;
  }

  /** Removes one instance (or all); returns the ids removed. */
  async deregister(q: Queryable, owner: string, capabilityId: string, instanceId?: string): Promise<string[]> {
    const rows = await sqlRows<{ instance_id: string }>(
      q,
      `DELETE FROM flex_capability_instances WHERE owner = $3 AND capability_id = $1 AND ($2::text IS NULL OR instance_id = $2) RETURNING instance_id`,
      [capabilityId, instanceId ?? null, owner],
    );
    return rows.map((r) => r.instance_id).sort();
  }

  /** Marks every instance past its heartbeat timeout inactive; each row is claimed by exactly one caller. */
  async sweepStale(q: Queryable): Promise<StaleInstance[]> {
    const rows = await sqlRows<{ owner: string; capability_id: string; instance_id: string; last_seen_at: Date }>(
      q,
      `UPDATE flex_capability_instances SET status = 'inactive'
       WHERE status = 'active' AND heartbeat_timeout_seconds IS NOT NULL
         AND last_seen_at + make_interval(secs => heartbeat_timeout_seconds) < now()
       RETURNING owner, capability_id, instance_id, last_seen_at`,
    );
    return rows.map((r) => ({ owner: r.owner, capabilityId: r.capability_id, instanceId: r.instance_id, lastSeenAt: r.last_seen_at }));
  }
}

function toStored(r: Record<string, any>): StoredCapability {
  const instances: InstanceRecord[] = (r.instances as Array<Record<string, any>>).map((i) => ({
    instanceId: i.instance_id,
    scopes: i.scopes ?? [],
    ...(i.endpoint ? { endpoint: i.endpoint } : {}),
    ...(i.heartbeat_timeout_seconds ? { heartbeatTimeoutSeconds: Number(i.heartbeat_timeout_seconds) } : {}),
    status: i.status,
    registeredAt: new Date(i.registered_at),
    lastSeenAt: new Date(i.last_seen_at),
  }));
  return {
    registration: r.registration as CapabilityRegistration,
    registeredAt: new Date(r.registered_at),
    updatedAt: new Date(r.updated_at),
    instances,
    owner: r.owner,
    ownerUserId: r.owner_user_id,
    inputSchema: r.input_schema,
    outputSchema: r.output_schema,
    catalogTags: r.catalog_tags ?? [],
    ...(r.collection ? { collection: r.collection } : {}),
  };
}
