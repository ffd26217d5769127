/**
 * A query through the services: the planner plans it (PlanQuery: memory,
 * master plan, compiled and realised), the orchestrator runs the plan as the
 * caller's run, and once the run ended the planner composes the answer
 * (ComposeAnswer). Used by POST /query and POST /query/stream.
 */
import { randomUUID } from 'node:crypto';
import { orchestrator, type common, type query } from '@af/contracts';
import { kahnLevels, planFromWire } from '@af/plan';
import { call, followRunFrames, type Closeable } from '@af/service-kit';
import type { GatewayDeps } from '../http/deps.js';
import { runForComposer, type RunFrame } from './query-events.js';

const lower = (name: string, prefix: string) => name.replace(prefix, '').toLowerCase();

export interface QueryInput {
  query: string;
  conversation_id?: string | undefined;
  session_id?: string | undefined;
}

/** What the `plan` event and the POST /query answer say about the plan. */
export function planView(p: query.PlanQueryResponse, runId: string): Record<string, unknown> {
  const plan = p.plan ? (planFromWire(p.plan) as { nodes: Array<{ id: string; dependsOn?: string[] }> }) : { nodes: [] };
  return {
    query_id: p.queryId,
    conversation_id: p.conversationId,
    session_id: p.sessionId,
    run_id: runId,
    analysis: p.masterPlan?.analysis ?? {},
    execution_plan: p.masterPlan?.execution_plan ?? [],
    stages: kahnLevels({ nodes: plan.nodes.map((n) => ({ ...n, dependsOn: n.dependsOn ?? [] })) } as Parameters<typeof kahnLevels>[0]),
    memory: p.memory ?? {},
  };
}

export class QueryRunner {
  constructor(private readonly deps: GatewayDeps) {}

  plan(principal: common.Principal, input: QueryInput, streaming: boolean): Promise<query.PlanQueryResponse> {
    return call(this.deps.clients.query.planQuery({ principal, query: input.query, conversationId: input.conversation_id ?? '', sessionId: input.session_id ?? '', streaming }), 120_000);
  }

  /** Starts the plan as the caller's interactive run, one per query (the query id is the run's idempotency key). */
  async start(principal: common.Principal, planned: query.PlanQueryResponse): Promise<string> {
    const { run } = await call(
      this.deps.clients.orchestrator.startRun({ principal, plan: planned.plan, inputs: {}, idempotencyKey: `query:${planned.queryId}`, runContext: 'interactive', outputContract: undefined, goalCondition: [], policies: [], runId: randomUUID() }),
    );
    return run!.id;
  }

  /** Every frame of the run from the start, live, until `complete` (then onEnd). */
  follow(principal: common.Principal, runId: string, onFrame: (f: RunFrame) => void, onEnd: () => void): Promise<Closeable> {
    const orch = this.deps.clients.orchestrator;
    return followRunFrames<RunFrame & { runId: string }>({
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

  /** Resolves once the run ended. */
  ended(principal: common.Principal, runId: string, onFrame: (f: RunFrame) => void = () => undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const held: { follower?: Closeable; ended?: boolean } = {};
      this.follow(principal, runId, onFrame, () => {
        held.ended = true;
        void held.follower?.close();
        resolve();
      }).then((f) => {
        held.follower = f;
        if (held.ended) void f.close();
      }, reject);
    });
  }

  /** The composed answer of the ended run. */
  async compose(principal: common.Principal, queryId: string, runId: string): Promise<Record<string, unknown>> {
    const { run } = await call(this.deps.clients.orchestrator.getRun({ principal, runId }));
    const view = runForComposer({
      status: lower(orchestrator.runStatusToJSON(run!.status), 'RUN_STATUS_'),
      error: run!.error,
      nodes: run!.nodes.map((n) => ({ nodeId: n.nodeId, status: lower(orchestrator.nodeStatusToJSON(n.status), 'NODE_STATUS_'), error: n.error, outputJson: n.outputJson })),
    });
    const out = await call(this.deps.clients.query.composeAnswer({ principal, queryId, runId, run: view }), 120_000);
    return out.result ?? {};
  }
}
