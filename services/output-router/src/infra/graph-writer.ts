/**
 * The knowledge-graph destination: entities to entity-resolution's
 * ActionService (`resolve_entities`), keyed by the delivery key (its
 * dispatcher answers a replayed key with the first answer, so a retry never
 * resolves twice). A write that fails for a reason a retry may fix
 * (unavailable, deadline, internal) is queued in `graph_write_queue` and
 * retried with backoff by every replica (rows taken with SKIP LOCKED) until
 * it lands (the delivery log then says delivered) or runs out of attempts.
 */
import { action } from '@af/contracts';
import {
  AppError,
  call,
  createGrpcClient,
  sqlRows,
  type GrpcClientOptions,
  type Queryable,
  type ServiceKit,
} from '@af/service-kit';
import { retryDelayMs } from '../domain/graph-entities.js';
import type { DeliveryLog } from './delivery-log.js';

export interface GraphWrite {
  key: string;
  owner: string;
  teamIds: readonly string[];
  runId: string;
  nodeId: string;
  entities: Record<string, unknown>[];
}

export interface GraphWriterSettings {
  url?: string | undefined;
  auth: GrpcClientOptions['auth'];
  timeoutMs: number;
  retryBaseMs: number;
  maxAttempts: number;
}

/** Codes a later attempt may not get: the entities themselves are wrong. */
const FINAL = new Set(['INVALID_ARGUMENT', 'PERMISSION_DENIED', 'UNAUTHENTICATED', 'NOT_FOUND']);

export class GraphWriter {
  private readonly client: action.ActionServiceClient | undefined;
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly db: Queryable,
    private readonly deliveries: DeliveryLog,
    private readonly s: GraphWriterSettings,
    private readonly log: ServiceKit['log'],
  ) {
    this.client = s.url
      ? createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, s.url, { auth: s.auth, readyWaitMs: 2_000 })
      : undefined;
  }

  get enabled(): boolean {
    return this.client !== undefined;
  }

  private async resolve(w: GraphWrite): Promise<Record<string, unknown>> {
    const res = await call(
      this.client!.execute({
        action: 'resolve_entities',
        inputs: { entities: w.entities },
        params: {},
        idempotencyKey: w.key,
        principal: { userId: w.owner, teamIds: [...w.teamIds] },
        timeoutMs: this.s.timeoutMs,
        runId: w.runId,
        nodeId: w.nodeId,
        attempt: 1,
      }),
      this.s.timeoutMs + 2_000,
    );
    const out = (res.outputs ?? {}) as { resolved?: unknown[]; merge_count?: number; ambiguous?: unknown[] };
    return {
      entities_sent: w.entities.length,
      resolved: Array.isArray(out.resolved) ? out.resolved.length : 0,
      merge_count: out.merge_count ?? 0,
      ambiguous: Array.isArray(out.ambiguous) ? out.ambiguous.length : 0,
    };
  }

  /**
   * Writes now; on a failure a retry may fix, queues the write and answers
   * `{queued: true}` (the report's `queued` status). Final failures throw.
   */
  /** Throws `action_unavailable` when this deployment has no entity-resolution to write to. */
  requireEnabled(): void {
    if (!this.client)
      throw new AppError(
        'FAILED_PRECONDITION',
        'action_unavailable: the knowledge-graph destination needs the entity-resolution service (ENTITY_RESOLUTION_URL), which this deployment does not run',
      );
  }

  async write(w: GraphWrite): Promise<{ details: Record<string, unknown>; queued: boolean; replayed: boolean }> {
    this.requireEnabled();
    const done = await this.deliveries.find(w.key);
    if (done?.status === 'delivered') return { details: done.details, queued: false, replayed: true };
    const [queuedRow] = w.key
      ? await sqlRows(this.db, `SELECT status, attempts, next_attempt_at FROM graph_write_queue WHERE delivery_key = $1`, [w.key])
      : [];
    if (queuedRow?.status === 'pending')
      return { details: { queued: true, attempts: queuedRow.attempts, next_attempt_at: new Date(queuedRow.next_attempt_at).toISOString() }, queued: true, replayed: true };
    try {
      const details = await this.resolve(w);
      await this.deliveries.record(w.key, w.owner, 'knowledge_graph', 'delivered', details);
      return { details, queued: false, replayed: false };
    } catch (err) {
      const e = err instanceof AppError ? err : new AppError('UNAVAILABLE', (err as Error).message);
      if (FINAL.has(e.code) || !w.key) throw e;
      const next = new Date(Date.now() + retryDelayMs(1, this.s.retryBaseMs));
      await sqlRows(
        this.db,
        `INSERT INTO graph_write_queue (delivery_key, owner_user_id, team_ids, run_id, node_id, entities, status, attempts, last_error, next_attempt_at)
         VALUES ($1,$2,$3,$4,$5,$6,'pending',1,$7,$8) ON CONFLICT (delivery_key) DO NOTHING`,
        [w.key, w.owner, [...w.teamIds], w.runId, w.nodeId, JSON.stringify(w.entities), e.message, next],
      );
      await this.deliveries.record(w.key, w.owner, 'knowledge_graph', 'failed', { queued: true, error: e.message });
      return { details: { queued: true, attempts: 1, error: e.message, next_attempt_at: next.toISOString() }, queued: true, replayed: false };
    }
  }

  /** Retries due writes every `everyMs`. */
  start(everyMs: number): void {
    if (!this.client) return;
    this.timer = setInterval(() => void this.retryDue().catch((err) => this.log.warn({ err }, 'graph retry round failed')), everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One round: each due write tried once; answers how many landed. */
  async retryDue(limit = 20): Promise<number> {
    if (!this.client || this.running) return 0;
    this.running = true;
    let landed = 0;
    try {
      const rows = await sqlRows(
        this.db,
        `UPDATE graph_write_queue SET next_attempt_at = now() + interval '5 minutes', updated_at = now()
          WHERE delivery_key IN (SELECT delivery_key FROM graph_write_queue WHERE status = 'pending' AND next_attempt_at <= now()
                                 ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING *`,
        [limit],
      );
      for (const r of rows) {
        const w: GraphWrite = { key: r.delivery_key, owner: r.owner_user_id, teamIds: r.team_ids ?? [], runId: r.run_id, nodeId: r.node_id, entities: r.entities };
        try {
          const details = await this.resolve(w);
          await this.deliveries.record(w.key, w.owner, 'knowledge_graph', 'delivered', { ...details, retried: r.attempts });
          await sqlRows(this.db, `UPDATE graph_write_queue SET status = 'delivered', attempts = attempts + 1, last_error = NULL, updated_at = now() WHERE delivery_key = $1`, [w.key]);
          landed++;
        } catch (err) {
          const e = err instanceof AppError ? err : new AppError('UNAVAILABLE', (err as Error).message);
          const attempts = Number(r.attempts) + 1;
          const final = FINAL.has(e.code) || attempts >= this.s.maxAttempts;
          await sqlRows(
            this.db,
            `UPDATE graph_write_queue SET status = $2, attempts = $3, last_error = $4, next_attempt_at = $5, updated_at = now() WHERE delivery_key = $1`,
            [w.key, final ? 'failed' : 'pending', attempts, e.message, new Date(Date.now() + retryDelayMs(attempts, this.s.retryBaseMs))],
          );
          if (final) this.log.warn({ key: w.key, attempts, code: e.code }, 'knowledge-graph write given up');
        }
      }
    } finally {
      this.running = false;
    }
    return landed;
  }
}
