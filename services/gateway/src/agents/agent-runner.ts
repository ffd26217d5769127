/**
 * Running an agent through the services: the planner says what a message
 * runs (PrepareMessage: strategy, plan, inputs, clarify), the orchestrator
 * runs the plan as the caller's run marked with the agent, the planner logs
 * it (RecordAgentRun) and, once it ended, writes its journal entry and gives
 * the final answer (FinishAgentRun). Used by the chat stream and by
 * POST /profiles/{id}/test.
 */
import { createHash, randomUUID } from 'node:crypto';
import { orchestrator, type common, type profiles } from '@af/contracts';
import { planFromWire } from '@af/plan';
import { AppError, call, followRunFrames, type Closeable } from '@af/service-kit';
import type { GatewayDeps } from '../http/deps.js';

export interface RunFrameIn {
  runId: string;
  seq: number;
  type: string;
  timestamp: string;
  nodeId?: string;
  payload: Record<string, unknown>;
}

export interface Selection {
  agent_profile_id: string;
  handle: string;
  strategy: string;
  playbook_id: string | null;
  reason: string;
  notes: string[];
  inputs: Record<string, unknown>;
  extracted: Array<Record<string, unknown>>;
}

const lower = (name: string, prefix: string) => name.replace(prefix, '').toLowerCase();

export function selectionView(p: profiles.PrepareMessageResponse): Selection {
  return {
    agent_profile_id: p.agentProfileId,
    handle: p.handle,
    strategy: p.strategy,
    playbook_id: p.playbookId || null,
    reason: p.reason,
    notes: p.notes,
    inputs: p.inputs ?? {},
    extracted: p.extracted,
  };
}

/** The clear error of a strategy that needs a model when none is configured (never an invented answer). */
export function noModelMessage(p: profiles.PrepareMessageResponse): string {
  return `agent '@${p.handle}' answers this with '${p.strategy}', which needs a chat model, and none is configured (LLM_PROVIDER is none): no answer was made up`;
}

export class AgentRunner {
  constructor(private readonly deps: GatewayDeps) {}

  prepare(principal: common.Principal, message: string, agentProfileId: string, inputs: Record<string, unknown>, conversationId: string): Promise<profiles.PrepareMessageResponse> {
    return call(this.deps.clients.profiles.prepareMessage({ principal, message, agentProfileId, inputs, ...(conversationId ? { conversationId } : {}) }), 60_000);
  }

  /**
   * Logs the agent run in the planner, then starts the prepared plan as the
   * caller's run under that id (so a journal step of the run finds it
   * logged); the run id. The id comes from the idempotency key when one is
   * given (a retry is the same run). A run that could not start still gets
   * its journal entry (error) and closes its log row.
   */
  async start(principal: common.Principal, p: profiles.PrepareMessageResponse, idempotencyKey: string | undefined): Promise<string> {
    if (!p.plan) throw new AppError('FAILED_PRECONDITION', `agent '@${p.handle}' has nothing to run`);
    const key = idempotencyKey?.slice(0, 200) || randomUUID();
    const runId = idempotencyKey ? uuidFrom(`${principal.userId}:agent-run:${key}`) : randomUUID();
    await call(
      this.deps.clients.profiles.recordAgentRun({ principal, runId, agentProfileId: p.agentProfileId, query: p.query, strategy: p.strategy, playbookId: p.playbookId, teamId: p.teamId, runContext: 'interactive' }),
    );
    try {
      const { run } = await call(
        this.deps.clients.orchestrator.startRun({
          principal,
          plan: p.plan,
          inputs: p.inputs ?? {},
          idempotencyKey: key,
          runContext: 'interactive',
          outputContract: undefined,
          goalCondition: [],
          policies: [],
          agent: { agentProfileId: p.agentProfileId, invokedBy: principal.userId, teamId: p.teamId },
          runId,
        }),
      );
      return run!.id;
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      await call(this.deps.clients.profiles.finishAgentRun({ principal, runId, run: { status: 'failed', error, nodes: [] } })).catch(() => undefined);
      throw err;
    }
  }

  /** Every frame of the run from the start, live, until `complete` (then onEnd). */
  follow(principal: common.Principal, runId: string, onFrame: (f: RunFrameIn) => void, onEnd: () => void): Promise<Closeable> {
    const orch = this.deps.clients.orchestrator;
    return followRunFrames<RunFrameIn>({
      bus: this.deps.kit.bus,
      subjects: this.deps.kit.subjects,
      log: this.deps.kit.log,
      runId,
      afterSeq: 0,
      fetchAfter: async (seq) => {
        const { events } = await call(orch.listRunEvents({ principal, runId, afterSeq: String(seq) }));
        return events.map((e) => ({ ...e, seq: Number(e.seq), payload: e.payload ?? {}, ...(e.nodeId ? { nodeId: e.nodeId } : {}) }));
      },
      onFrame,
      onEnd,
    });
  }

  /** The finished run, its journal entry and the final answer. */
  async finish(principal: common.Principal, runId: string, p: profiles.PrepareMessageResponse): Promise<{ run: orchestrator.Run; entry: Record<string, unknown>; answer: string }> {
    const { run } = await call(this.deps.clients.orchestrator.getRun({ principal, runId }));
    const plan = p.plan ? (planFromWire(p.plan) as { nodes?: Array<{ id: string; kind?: string; action?: string }> }) : undefined;
    const byId = new Map((plan?.nodes ?? []).map((n) => [n.id, n]));
    const finished = {
      status: lower(orchestrator.runStatusToJSON(run!.status), 'RUN_STATUS_'),
      task_status: run!.taskStatus ? lower(orchestrator.taskStatusToJSON(run!.taskStatus), 'TASK_STATUS_') : '',
      error: run!.error,
      error_summary: run!.errorSummary,
      steps_completed: run!.stepsCompleted,
      nodes: run!.nodes.map((n) => ({
        node_id: n.nodeId,
        kind: byId.get(n.nodeId)?.kind ?? '',
        action: byId.get(n.nodeId)?.action ?? '',
        status: lower(orchestrator.nodeStatusToJSON(n.status), 'NODE_STATUS_'),
        error: n.error,
        output: n.outputJson ? (JSON.parse(n.outputJson) as unknown) : null,
      })),
      inputs: run!.inputs ?? {},
      connectors_called: run!.connectorsCalled,
      entities_discovered: run!.entitiesDiscovered,
      outputs_produced: run!.outputsProduced,
    };
    const out = await call(this.deps.clients.profiles.finishAgentRun({ principal, runId, run: finished }), 60_000);
    return { run: run!, entry: out.entry ?? {}, answer: out.answer };
  }
}

/** A UUID (version 5 layout) derived from `name`: the same name, the same id. */
export function uuidFrom(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
