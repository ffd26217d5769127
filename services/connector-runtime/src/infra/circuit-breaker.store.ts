/**
 * Circuit breakers shared by every replica: one `circuit_breakers` row per
 * connector key, moved only by the pure machine of `domain/circuit-breaker.ts`
 * inside a transaction that holds the row lock — so two replicas can never
 * both claim the half-open trial, and failures seen by different replicas
 * add up. Times come from the database's clock.
 *
 * The hot path costs nothing: a replica keeps the last state it saw per key
 * and trusts a closed or half-open state for `syncMs` (an open one until its
 * recovery time); it reads the row again after that, and writes only on a
 * counted failure, on a success that ends a run of failures, and for the
 * trial. A breaker opened by another replica is therefore seen within
 * `syncMs`, or at this replica's next failure, whichever comes first.
 */
import { randomUUID } from 'node:crypto';
import { sqlRows } from '@af/service-kit';
import type { DataSource, EntityManager } from 'typeorm';
import {
  CLOSED,
  admit,
  breakerOpenError,
  classifyOutcome,
  recordResult,
  type BreakerSettings,
  type BreakerState,
} from '@af/connectors';
import { ConnectorError } from '@af/connectors';

interface Row {
  state: BreakerState['state'];
  failures: number;
  open_until_ms: number | null;
  trial_id: string | null;
  trial_until_ms: number | null;
  last_failure: string | null;
  now_ms: number;
}

const COLUMNS = `state, failures, trial_id, last_failure,
  extract(epoch FROM open_until) * 1000 AS open_until_ms,
  extract(epoch FROM trial_until) * 1000 AS trial_until_ms,
  extract(epoch FROM clock_timestamp()) * 1000 AS now_ms`;

/** The row if there is one, and the database's now either way. */
const READ_SQL = `SELECT b.state, b.failures, b.trial_id, b.last_failure,
  extract(epoch FROM b.open_until) * 1000 AS open_until_ms,
  extract(epoch FROM b.trial_until) * 1000 AS trial_until_ms,
  extract(epoch FROM n.now) * 1000 AS now_ms
  FROM (SELECT clock_timestamp() AS now) n LEFT JOIN circuit_breakers b ON b.key = $1`;

/** The rows themselves: read, and transition atomically. */
export class CircuitBreakerStore {
  constructor(private readonly db: DataSource) {}

  /**
   * The state as stored (CLOSED when the key has no row, as for every
   * connector that never failed) and the database's now, in one round trip.
   */
  async read(key: string): Promise<{ state: BreakerState; nowMs: number }> {
    const [row] = await sqlRows<Row | (Partial<Row> & { state: null; now_ms: number })>(this.db, READ_SQL, [key]);
    if (!row) throw new Error('the circuit breaker read returned no row');
    if (row.state === null) return { state: CLOSED, nowMs: Number(row.now_ms) };
    return fromRow(row as Row);
  }

  /**
   * Applies `next` to the row under its lock (created closed on first use)
   * and writes the result when it differs.
   */
  async transition(
    key: string,
    next: (state: BreakerState, nowMs: number) => BreakerState,
  ): Promise<{ before: BreakerState; after: BreakerState; nowMs: number }> {
    return this.db.transaction(async (m) => {
      let row = await lockRow(m, key);
      if (!row) {
        await sqlRows(m, 'INSERT INTO circuit_breakers (key) VALUES ($1) ON CONFLICT (key) DO NOTHING', [key]);
        row = await lockRow(m, key);
      }
      if (!row) throw new Error(`circuit_breakers row ${key} vanished`);
      const { state: before, nowMs } = fromRow(row);
      const after = next(before, nowMs);
      if (after !== before) {
        await sqlRows(
          m,
          `UPDATE circuit_breakers SET state = $2, failures = $3, open_until = to_timestamp($4::float8 / 1000),
             trial_id = $5, trial_until = to_timestamp($6::float8 / 1000), last_failure = $7, updated_at = clock_timestamp()
           WHERE key = $1`,
          [key, after.state, after.failures, after.openUntilMs ?? null, after.trialId ?? null, after.trialUntilMs ?? null, after.lastFailure ?? null],
        );
      }
      return { before, after, nowMs };
    });
  }
}

async function lockRow(m: EntityManager, key: string): Promise<Row | undefined> {
  const rows = await sqlRows<Row>(m, `SELECT ${COLUMNS} FROM circuit_breakers WHERE key = $1 FOR UPDATE`, [key]);
  return rows[0];
}

function fromRow(row: Row): { state: BreakerState; nowMs: number } {
  const state: BreakerState = { state: row.state, failures: Number(row.failures) };
  if (row.open_until_ms !== null) state.openUntilMs = Number(row.open_until_ms);
  if (row.trial_id !== null) state.trialId = row.trial_id;
  if (row.trial_until_ms !== null) state.trialUntilMs = Number(row.trial_until_ms);
  if (row.last_failure !== null) state.lastFailure = row.last_failure;
  return { state, nowMs: Number(row.now_ms) };
}

export interface CircuitBreakerOptions extends BreakerSettings {
  /** BREAKER_SYNC_MS: how long a seen closed state is trusted. 0 = read before every call. */
  syncMs: number;
}

/** What `admit` hands back; pass it to `record` when the call ends. */
export interface BreakerTicket {
  readonly key: string;
  /** Set when this call is the half-open trial. */
  readonly trialId?: string;
}

interface Seen {
  state: BreakerState;
  /** The database's clock when read, and ours (performance.now()) at the same moment. */
  dbNowMs: number;
  localAt: number;
  /** The ticket of a call let through without a trial (tickets are read-only, so one serves every call). */
  ticket: BreakerTicket;
  /** `ticket`, settled: what `admit` answers while the state is trusted. */
  admitted: Promise<BreakerTicket>;
}

/** What `record` answers when there is nothing to write. */
const RECORDED: Promise<void> = Promise.resolve();

const MAX_SEEN = 10_000;

/** The breaker calls go through; one instance per replica. */
export class CircuitBreaker {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly store: CircuitBreakerStore,
    private readonly options: CircuitBreakerOptions,
  ) {
    for (const [name, value, min] of [
      ['BREAKER_FAILURE_THRESHOLD', options.failureThreshold, 1],
      ['BREAKER_RECOVERY_MS', options.recoveryMs, 1],
      ['BREAKER_SYNC_MS', options.syncMs, 0],
    ] as const) {
      if (!Number.isFinite(value) || value < min) throw ConnectorError.invalid(name, `must be a number ≥ ${min}`);
    }
  }

  /**
   * Lets a call through, or throws UNAVAILABLE (retryAfterMs = when a call
   * will be tried again) naming `label`. When the recovery time has passed
   * this call becomes the one trial, held for `trialTimeoutMs` (make it
   * cover the call's timeout and its rate-limit wait).
   */
  admit(key: string, options: { label: string; trialTimeoutMs: number }): Promise<BreakerTicket> {
    const { trialTimeoutMs } = options;
    if (!Number.isFinite(trialTimeoutMs) || trialTimeoutMs <= 0) {
      return Promise.reject(ConnectorError.invalid('trialTimeoutMs', 'must be a positive number of milliseconds'));
    }
    // The common case, on every call, without allocating (not even an async frame): a closed
    // breaker seen within syncMs lets the call through.
    const seen = this.seen.get(key);
    if (seen && seen.state.state === 'closed' && performance.now() - seen.localAt < this.options.syncMs) return seen.admitted;
    return this.admitSlowly(key, options);
  }

  private async admitSlowly(key: string, options: { label: string; trialTimeoutMs: number }): Promise<BreakerTicket> {
    const { label, trialTimeoutMs } = options;
    let view = this.view(key);
    if (!view) {
      const read = await this.store.read(key);
      this.remember(key, read.state, read.nowMs);
      view = { state: read.state, nowMs: read.nowMs };
    }
    const local = admit(view.state, view.nowMs, { trialId: '', trialTimeoutMs });
    if (local.allowed && !local.trial) return { key };
    if (!local.allowed) throw breakerOpenError(label, view.state, local.retryAfterMs, view.nowMs);

    // Recovery time is up: claim the trial under the row lock; exactly one caller gets it.
    const trialId = randomUUID();
    const { after, nowMs } = await this.store.transition(key, (s, now) => admit(s, now, { trialId, trialTimeoutMs }).next);
    this.remember(key, after, nowMs);
    if (after.state === 'half_open' && after.trialId === trialId) return { key, trialId };
    const decided = admit(after, nowMs, { trialId: '', trialTimeoutMs });
    if (decided.allowed) return { key };
    throw breakerOpenError(label, after, decided.retryAfterMs, nowMs);
  }

  /**
   * Reports how the admitted call ended: `error` undefined for success,
   * otherwise what it threw (see `classifyOutcome` for what counts).
   */
  record(ticket: BreakerTicket, error?: unknown): Promise<void> {
    const outcome = classifyOutcome(error);
    if (ticket.trialId === undefined) {
      if (outcome === 'neutral') return RECORDED;
      const known = this.seen.get(ticket.key)?.state;
      // A success only needs a write when it ends a run of failures this replica knows of.
      if (outcome === 'success' && (!known || known.state !== 'closed' || known.failures === 0)) return RECORDED;
    }
    return this.write(ticket, error);
  }

  private async write(ticket: BreakerTicket, error: unknown): Promise<void> {
    const { after, nowMs } = await this.store.transition(ticket.key, (s, now) =>
      recordResult(s, error, now, this.options, ticket.trialId),
    );
    this.remember(ticket.key, after, nowMs);
  }

  /** The state as this replica last saw it (undefined = not seen yet). */
  cached(key: string): BreakerState | undefined {
    return this.seen.get(key)?.state;
  }

  /** The cached state while it may be trusted, with the database's now estimated from our clock. */
  private view(key: string): { state: BreakerState; nowMs: number } | undefined {
    const s = this.seen.get(key);
    if (!s) return undefined;
    const age = performance.now() - s.localAt;
    const nowMs = s.dbNowMs + age;
    // Open can only change at the time it names (then the row decides); closed and half-open
    // can change any time on another replica, so they are trusted for syncMs.
    if (s.state.state === 'open' || age < this.options.syncMs) return { state: s.state, nowMs };
    return undefined;
  }

  private remember(key: string, state: BreakerState, dbNowMs: number): void {
    if (!this.seen.has(key) && this.seen.size >= MAX_SEEN) this.seen.delete(this.seen.keys().next().value as string);
    const ticket = this.seen.get(key)?.ticket ?? { key };
    const admitted = this.seen.get(key)?.admitted ?? Promise.resolve(ticket);
    this.seen.set(key, { state, dbNowMs, localAt: performance.now(), ticket, admitted });
  }
}
