/**
 * A query through the services: the planner plans it (PlanQuery: memory,
 * master plan, compiled and realised), the orchestrator runs the plan as the
 * caller's run, and once the run ended the planner composes the answer
 * (ComposeAnswer). Used by POST /query and POST /query/stream.
 */
import { Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import { orchestrator, query as queryApi, type common, type query } from '@af/contracts';
import { kahnLevels, planFromWire } from '@af/plan';
import { AppError, call, createGrpcClientWithChannel, followRunFrames, fromGrpcError, PRINCIPAL_TOKEN_METADATA, type Closeable, type GrpcJsClient } from '@af/service-kit';
import { uuidFrom } from '../agents/agent-runner.js';
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
    replayed: p.replayed,
  };
}

export interface ComposedStream {
  result: Record<string, unknown>;
  /** The tokens sent are not the start of `result.answer`: the client shows the answer instead. */
  replacesTokens: boolean;
}

type RawQueryClient = GrpcJsClient & {
  composeAnswerStream(req: query.ComposeAnswerStreamRequest, md: Metadata): ClientReadableStream<query.ComposeAnswerStreamResponse>;
};
const rawClients = new WeakMap<GatewayDeps, RawQueryClient>();

/** The planner's QueryService without the unary wrapper (whose deadline would cut a long answer): for ComposeAnswerStream. */
function rawQueryClient(deps: GatewayDeps): RawQueryClient {
  let c = rawClients.get(deps);
  if (!c) {
    c = createGrpcClientWithChannel('planner', queryApi.QUERY_SERVICE_NAME, deps.kit.config.PLANNER_URL, { auth: deps.serviceAuth }).raw as RawQueryClient;
    rawClients.set(deps, c);
  }
  return c;
}

export class QueryRunner {
  constructor(private readonly deps: GatewayDeps) {}

  /** Plans the question; with an Idempotency-Key, the planner answers a repeated request with its first plan (`replayed`). */
  plan(principal: common.Principal, input: QueryInput, streaming: boolean, idempotencyKey?: string): Promise<query.PlanQueryResponse> {
    return call(
      this.deps.clients.query.planQuery({ principal, query: input.query, conversationId: input.conversation_id ?? '', sessionId: input.session_id ?? '', streaming, idempotencyKey: idempotencyKey?.slice(0, 200) ?? '' }),
      120_000,
    );
  }

  /** Starts the plan as the caller's interactive run, one per query: the run's id and idempotency key come from the query id, so a replayed query finds its run. */
  async start(principal: common.Principal, planned: query.PlanQueryResponse): Promise<string> {
    const { run } = await call(
      this.deps.clients.orchestrator.startRun({
        principal,
        plan: planned.plan,
        inputs: {},
        idempotencyKey: `query:${planned.queryId}`,
        runContext: 'interactive',
        outputContract: undefined,
        goalCondition: [],
        policies: [],
        runId: uuidFrom(`${principal.userId}:query-run:${planned.queryId}`),
      }),
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

  private async runView(principal: common.Principal, runId: string): Promise<Record<string, unknown>> {
    const { run } = await call(this.deps.clients.orchestrator.getRun({ principal, runId }));
    return runForComposer({
      status: lower(orchestrator.runStatusToJSON(run!.status), 'RUN_STATUS_'),
      error: run!.error,
      nodes: run!.nodes.map((n) => ({ nodeId: n.nodeId, status: lower(orchestrator.nodeStatusToJSON(n.status), 'NODE_STATUS_'), error: n.error, outputJson: n.outputJson })),
    });
  }

  /** The composed answer of the ended run. */
  async compose(principal: common.Principal, queryId: string, runId: string): Promise<Record<string, unknown>> {
    const run = await this.runView(principal, runId);
    const out = await call(this.deps.clients.query.composeAnswer({ principal, queryId, runId, run }), 120_000);
    return out.result ?? {};
  }

  /**
   * The composed answer of the ended run, streamed: `onToken` gets each
   * piece of text as the composer's model writes it, then the result. An
   * abort cancels the planner's stream (which stops the model); a failure
   * mid-stream rejects with the planner's error.
   */
  async composeStream(principal: common.Principal, queryId: string, runId: string, onToken: (text: string) => void, signal: AbortSignal): Promise<ComposedStream> {
    const run = await this.runView(principal, runId);
    signal.throwIfAborted();
    const md = new Metadata();
    md.set(PRINCIPAL_TOKEN_METADATA, this.deps.serviceAuth.tokenFor(principal));
    return new Promise<ComposedStream>((resolve, reject) => {
      const stream = rawQueryClient(this.deps).composeAnswerStream({ principal, queryId, runId, run }, md);
      let last: query.ComposeAnswerResult | undefined;
      const cancel = () => stream.cancel();
      signal.addEventListener('abort', cancel, { once: true });
      const settle = () => signal.removeEventListener('abort', cancel);
      stream.on('data', (m: query.ComposeAnswerStreamResponse) => {
        if (m.result) last = m.result;
        else if (m.token) onToken(m.token);
      });
      stream.on('error', (err: unknown) => {
        settle();
        reject(signal.aborted ? new AppError('CANCELLED', 'the client left; the answer was not composed') : fromGrpcError(err));
      });
      stream.on('end', () => {
        settle();
        if (last) resolve({ result: last.result ?? {}, replacesTokens: last.replacesTokens });
        else reject(new AppError('INTERNAL', 'the composer stream ended without its result'));
      });
    });
  }
}
