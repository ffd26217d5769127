/**
 * Approval requests that ask to be announced (`notify`: set for background,
 * scheduled and monitor runs, whose owner is not watching) become in-app
 * notifications of their owner, with a link to the request. Events come from
 * the approval service's outbox (`af.approval.<id>.requested`); a durable
 * consumer shared by the replicas handles each once, and the delivery key
 * `approval:<id>:requested` makes a redelivered event notify once. The
 * in-process bus of the embedded mode only fans out, so there it subscribes.
 */
import { decodeJson, type Closeable, type ServiceKit } from '@af/service-kit';
import type { DeliveryLog } from './delivery-log.js';
import type { InboxRepository } from './inbox.repository.js';

interface ApprovalEvent {
  type?: unknown;
  requestId?: unknown;
  kind?: unknown;
  ownerUserId?: unknown;
  runId?: unknown;
  nodeId?: unknown;
  notify?: unknown;
}

const WHAT: Record<string, string> = {
  approval_gate: 'An approval',
  tool_hitl: 'A tool approval',
  policy_hitl: 'A policy decision',
  human_task: 'A task',
  clarify: 'A question',
};

export class ApprovalRequestsConsumer {
  private sub?: Closeable;

  constructor(
    private readonly kit: ServiceKit,
    private readonly inbox: InboxRepository,
    private readonly deliveries: DeliveryLog,
  ) {}

  async start(): Promise<void> {
    const p = this.kit.subjects.prefix ? `${this.kit.subjects.prefix}.` : '';
    const filter = `${p}af.approval.*.requested`;
    if (this.kit.config.NATS_URL.startsWith('memory:')) {
      this.sub = await this.kit.bus.subscribe(
        filter,
        (m) =>
          void this.handle(m.data).catch((err) =>
            this.kit.log.warn({ err }, 'approval request not announced'),
          ),
      );
      return;
    }
    this.sub = await this.kit.bus.consume(
      filter,
      { durable: 'output-router-approval-requests', ackWaitMs: 30_000, maxInFlight: 16 },
      async (item) => {
        await this.handle(item.data);
        item.ack();
      },
    );
  }

  async stop(): Promise<void> {
    await this.sub?.close();
  }

  /** Notifies the owner of a `notify` request; answers whether a notification exists for it now. */
  async handle(data: Uint8Array): Promise<boolean> {
    let e: ApprovalEvent;
    try {
      e = decodeJson<ApprovalEvent>(data);
    } catch (err) {
      this.kit.log.warn({ err }, 'undecodable approval event');
      return false;
    }
    const id = typeof e.requestId === 'string' ? e.requestId : '';
    const owner = typeof e.ownerUserId === 'string' ? e.ownerUserId : '';
    if (e.type !== 'requested' || e.notify !== true || !id || !owner) return false;
    const kind = typeof e.kind === 'string' ? e.kind : '';
    const runId = typeof e.runId === 'string' ? e.runId : '';
    const nodeId = typeof e.nodeId === 'string' ? e.nodeId : '';
    await this.deliveries.once(`approval:${id}:requested`, owner, 'notification', async (q) => {
      const n = await this.inbox.notify(
        {
          owner,
          title: `${WHAT[kind] ?? 'A request'} is waiting for you`,
          message: runId
            ? `Run ${runId} is waiting at step ${nodeId || '?'}.`
            : 'A request is waiting for your decision.',
          priority: 'high',
          actionUrl: `/api/agent-factory/approvals/${id}`,
          actionLabel: 'Review',
          origin: {
            ...(runId ? { runId } : {}),
            ...(nodeId ? { nodeId } : {}),
            action: 'approval_requested',
          },
        },
        q,
      );
      return { notification_id: n.id };
    });
    return true;
  }
}
