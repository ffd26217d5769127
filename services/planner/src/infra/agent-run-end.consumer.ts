/**
 * The journal entry of every agent run, written when the run ends whoever
 * started it (chat, POST /profiles/{id}/test, the run API, a schedule) and
 * whether or not anybody still follows it: the orchestrator's `complete`
 * frames (`af.run.<runId>.complete`, which name the agent of an agent run)
 * are read by a durable JetStream consumer shared by the planner replicas,
 * so a frame published while no planner (or gateway) runs is handled when
 * one is back. A frame whose entry cannot be written now (the orchestrator
 * does not answer) is not acknowledged and comes again. The in-process bus
 * of the embedded mode only fans out, so there it subscribes.
 */
import { decodeJson, type Closeable, type ServiceKit } from '@af/service-kit';
import type { AgentRuns, RunEnd } from '../app/agent-runs.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The run end a `complete` frame describes, or undefined for another frame. */
export function runEndOf(frame: unknown): RunEnd | undefined {
  if (!frame || typeof frame !== 'object') return undefined;
  const f = frame as { type?: unknown; runId?: unknown; payload?: unknown };
  const p = (f.payload && typeof f.payload === 'object' ? f.payload : {}) as Record<string, unknown>;
  const runId = str(f.runId);
  if (f.type !== 'complete' || !/^[0-9a-f-]{36}$/i.test(runId)) return undefined;
  return {
    runId,
    status: str(p.status),
    ...(str(p.agent_profile_id) ? { agentProfileId: str(p.agent_profile_id) } : {}),
    ...(str(p.invoked_by) ? { invokedBy: str(p.invoked_by) } : {}),
    ...(str(p.team_id) ? { teamId: str(p.team_id) } : {}),
    ...(str(p.run_context) ? { runContext: str(p.run_context) } : {}),
    ...(str(p.run_name) ? { runName: str(p.run_name) } : {}),
  };
}

export class AgentRunEndConsumer {
  private sub?: Closeable;

  constructor(
    private readonly kit: ServiceKit,
    private readonly runs: Pick<AgentRuns, 'journalEnded'>,
  ) {}

  async start(): Promise<void> {
    const p = this.kit.subjects.prefix ? `${this.kit.subjects.prefix}.` : '';
    const filter = `${p}af.run.*.complete`;
    if (this.kit.config.NATS_URL.startsWith('memory:')) {
      this.sub = await this.kit.bus.subscribe(filter, (m) => void this.handle(m.data).catch((err) => this.kit.log.warn({ err }, 'agent run end: journal entry not written')));
      return;
    }
    this.sub = await this.kit.bus.consume(filter, { durable: 'planner-agent-journal', ackWaitMs: 60_000, maxInFlight: 8 }, async (item) => {
      await this.handle(item.data);
      item.ack();
    });
  }

  async stop(): Promise<void> {
    await this.sub?.close();
  }

  /** Writes the journal entry of the agent run the frame ended; answers whether one exists for it now. */
  async handle(data: Uint8Array): Promise<boolean> {
    let frame: unknown;
    try {
      frame = decodeJson<unknown>(data);
    } catch (err) {
      this.kit.log.warn({ err }, 'undecodable run frame');
      return false;
    }
    const end = runEndOf(frame);
    if (!end) return false;
    const entry = await this.runs.journalEnded(end);
    if (entry) this.kit.log.info({ runId: end.runId, journalEntryId: entry.id, taskStatus: entry.task_status }, 'agent run journaled');
    return Boolean(entry);
  }
}
