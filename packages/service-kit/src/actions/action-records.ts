/**
 * The first answer of every idempotency key an ActionService saw, so a node
 * replayed after a crash gets that answer instead of acting twice. The port
 * is implemented in PostgreSQL (pg-action-records.ts) and in memory (tests).
 */
import type { ActionReceipt } from './action-handler.js';

export interface StoredActionError {
  code: string;
  message: string;
  violations?: Array<{ field: string; reason: string; code?: string }>;
}

export type ActionClaim =
  /** `prior`: on a claim taken over, the checkpoint its earlier holder wrote (ActionReceipt). */
  | { state: 'claimed'; prior?: unknown }
  | { state: 'completed'; outputs: Record<string, unknown> }
  /** The handler's own write completed the call (ActionReceipt): its outputs are made from the receipt. */
  | { state: 'receipted'; receipt: unknown }
  | { state: 'failed'; error: StoredActionError }
  | { state: 'in_progress' }
  /** The key was used for another action or by another principal: never answered with someone else's result. */
  | { state: 'conflict'; reason: string };

export interface ActionRecords {
  /**
   * Claim `key` for this call, or say what an earlier call with it did. A
   * claim whose holder stopped heartbeating for `staleMs` is taken over.
   */
  claim(key: string, action: string, userId: string, staleMs: number): Promise<ActionClaim>;
  complete(key: string, outputs: Record<string, unknown>): Promise<void>;
  /**
   * Permanent failures are remembered (a replay fails the same way); transient ones release the key.
   * Either only while the call is in progress: a call whose receipt was written stays answered.
   */
  fail(key: string, error: StoredActionError, permanent: boolean): Promise<void>;
  heartbeat(key: string): Promise<void>;
}

interface Row {
  action: string;
  userId: string;
  status: 'in_progress' | 'completed' | 'failed';
  outputs?: Record<string, unknown>;
  error?: StoredActionError;
  receipt?: unknown;
  touchedAt: number;
}

/** In-process records for unit tests and single-process tools. */
export class MemoryActionRecords implements ActionRecords {
  private readonly rows = new Map<string, Row>();

  constructor(private readonly now: () => number = Date.now) {}

  async claim(key: string, action: string, userId: string, staleMs: number): Promise<ActionClaim> {
    const row = this.rows.get(key);
    if (!row || (row.status === 'in_progress' && this.now() - row.touchedAt > staleMs)) {
      if (row && (row.action !== action || row.userId !== userId)) return conflict(row, action);
      this.rows.set(key, { action, userId, status: 'in_progress', touchedAt: this.now(), ...(row?.receipt !== undefined ? { receipt: row.receipt } : {}) });
      return row?.receipt !== undefined ? { state: 'claimed', prior: row.receipt } : { state: 'claimed' };
    }
    if (row.action !== action || row.userId !== userId) return conflict(row, action);
    if (row.status === 'completed' && !row.outputs && row.receipt !== undefined) return { state: 'receipted', receipt: row.receipt };
    if (row.status === 'completed') return { state: 'completed', outputs: row.outputs ?? {} };
    if (row.status === 'failed') return { state: 'failed', error: row.error ?? { code: 'INTERNAL', message: 'failed' } };
    return { state: 'in_progress' };
  }

  async complete(key: string, outputs: Record<string, unknown>): Promise<void> {
    const row = this.rows.get(key);
    if (row) Object.assign(row, { status: 'completed', outputs, touchedAt: this.now() });
  }

  /** What a handler's own write does here (in PostgreSQL: `writeReceipt`): false when another holder finished the call. */
  writeReceipt(r: ActionReceipt, receipt: unknown, final: boolean): boolean {
    const row = this.rows.get(r.key);
    if (!r.claimed) {
      if (row) return false;
      this.rows.set(r.key, { action: r.action, userId: r.userId, status: final ? 'completed' : 'in_progress', receipt, touchedAt: this.now() });
      return true;
    }
    if (row?.status !== 'in_progress') return false;
    Object.assign(row, { receipt, touchedAt: this.now() }, final ? { status: 'completed' } : {});
    return true;
  }

  async fail(key: string, error: StoredActionError, permanent: boolean): Promise<void> {
    const row = this.rows.get(key);
    if (row?.status !== 'in_progress') return;
    if (permanent) Object.assign(row, { status: 'failed', error, touchedAt: this.now() });
    else this.rows.delete(key);
  }

  async heartbeat(key: string): Promise<void> {
    const row = this.rows.get(key);
    if (row?.status === 'in_progress') row.touchedAt = this.now();
  }
}

function conflict(row: Pick<Row, 'action'>, action: string): ActionClaim {
  return {
    state: 'conflict',
    reason: row.action !== action ? `was used for action ${row.action}, not ${action}` : 'belongs to another caller',
  };
}
