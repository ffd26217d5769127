/**
 * Resolutions from the approval service reach waiting nodes two ways:
 * `af.approval.<id>.decided` events (a durable JetStream consumer shared by
 * the replicas; the embedded dev mode's in-process bus only fans events out,
 * so there it subscribes), and a periodic reconciliation that asks the
 * service about waits still undecided after APPROVAL_RECONCILE_MS — so a
 * lost event, or a decision made while this service was down, cannot strand
 * a run. Applying is idempotent (only an undecided wait on that very request
 * takes it).
 */
import { AppError, decodeJson, type Closeable, type ServiceKit } from '@af/service-kit';
import { z } from 'zod';
import type { ApprovalService } from '../app/approval-port.js';
import type { RequestView } from '../domain/human-request.js';
import type { ApprovalWaitsStore } from './approval-waits.store.js';

const KINDS = ['approval_gate', 'tool_hitl', 'policy_hitl', 'human_task', 'clarify'] as const;

/** The `decided` event payload (proto agentfactory.approval.v1.ApprovalEvent, JSON). */
const DecidedEvent = z.object({
  type: z.literal('decided'),
  requestId: z.string().uuid(),
  kind: z.enum(KINDS),
  status: z.string().min(1),
  ownerUserId: z.string(),
  runId: z.string(),
  nodeId: z.string(),
  resolution: z
    .object({
      decidedBy: z.string().nullable().optional(),
      decidedAt: z.string().nullable().optional(),
      decision: z.enum(['approve', 'reject']).optional(),
      instructions: z.string().optional(),
      intent: z.enum(['enhance', 'override']).optional(),
      effectiveTask: z.string().optional(),
      output: z.unknown().optional(),
      answer: z.string().optional(),
      reasonCode: z.string().optional(),
      reason: z.string().optional(),
      automatic: z.boolean().optional(),
    })
    .loose(),
});

/** An event → the request view the waits store applies. */
export function requestFromEvent(data: unknown): RequestView | null {
  const parsed = DecidedEvent.safeParse(data);
  if (!parsed.success) return null;
  const e = parsed.data;
  const { decidedBy, decidedAt, ...rest } = e.resolution;
  return {
    id: e.requestId,
    kind: e.kind,
    status: e.status,
    ownerUserId: e.ownerUserId,
    runId: e.runId,
    nodeId: e.nodeId,
    timeoutAt: null,
    resolution: { ...(rest as RequestView['resolution'] & object), decidedBy: decidedBy ?? '', decidedAt: decidedAt ?? '' },
  };
}

export class ApprovalEventsConsumer {
  private sub?: Closeable;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly kit: ServiceKit,
    private readonly waits: ApprovalWaitsStore,
    private readonly approvals: ApprovalService,
    private readonly reconcileMs: number,
  ) {}

  async start(): Promise<void> {
    const p = this.kit.subjects.prefix ? `${this.kit.subjects.prefix}.` : '';
    const filter = `${p}af.approval.*.decided`;
    if (this.kit.config.NATS_URL.startsWith('memory:')) {
      this.sub = await this.kit.bus.subscribe(filter, (m) => void this.handle(m.data).catch((err) => this.kit.log.warn({ err }, 'decision not applied')));
    } else {
      this.sub = await this.kit.bus.consume(filter, { durable: 'orchestrator-approval-decisions', ackWaitMs: 30_000, maxInFlight: 32 }, async (item) => {
        await this.handle(item.data);
        item.ack();
      });
    }
    const loop = () => {
      if (this.stopped) return;
      this.reconcile()
        .then((n) => n && this.kit.log.info({ applied: n }, 'reconciled waits with the approval service'))
        .catch((err) => this.kit.log.warn({ err }, 'approval reconciliation failed'))
        .finally(() => {
          if (this.stopped) return;
          this.timer = setTimeout(loop, this.reconcileMs);
          this.timer.unref();
        });
    };
    this.timer = setTimeout(loop, this.reconcileMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.sub?.close();
  }

  /** Applies one `decided` event; an event it cannot read is dropped with a warning (reconciliation still covers its wait). */
  async handle(data: Uint8Array): Promise<boolean> {
    let request: RequestView | null = null;
    try {
      request = requestFromEvent(decodeJson(data));
    } catch {
      request = null;
    }
    if (!request) {
      this.kit.log.warn('unreadable approval event dropped');
      return false;
    }
    if (!request.runId || !request.nodeId) return false;
    // Applied here already (the ResumeRun that decided it was served here): nothing to do.
    if (this.waits.appliedHere(request.id)) return false;
    const applied = await this.waits.apply(request);
    this.kit.log.debug({ requestId: request.id, runId: request.runId, nodeId: request.nodeId, status: request.status, applied }, 'approval decided');
    return applied;
  }

  /** One round: undecided waits not checked for `reconcileMs` are looked up; resolved ones are applied. */
  async reconcile(limit = 100): Promise<number> {
    let applied = 0;
    for (const w of await this.waits.toReconcile(this.reconcileMs, limit)) {
      let request: RequestView;
      try {
        request = await this.approvals.get(w.userId, w.requestId);
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') this.kit.log.error({ ...w }, 'a waiting node waits for a request the approval service does not know');
        else this.kit.log.warn({ err, ...w }, 'could not look up a waiting request');
        continue;
      }
      if (request.status !== 'pending' && (await this.waits.apply(request))) applied++;
    }
    return applied;
  }
}
