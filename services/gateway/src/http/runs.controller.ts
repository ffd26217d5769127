import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { call, AppError, followRunFrames, type Closeable } from '@af/service-kit';
import { orchestrator, type common } from '@af/contracts';
import type { Request, Response } from 'express';
import { parseLastEventId } from '@af/service-kit';
import { isoTimestamp } from '../domain/frame-time.js';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { ListRunsQuery, ReplanRunSchema, ResumeRunSchema, StartRunSchema } from './schemas.js';
import { compileRunPlan } from './run-sources.js';
import { assertInputsFit, deprecatedField, parseBody } from './validation.js';
import { runSummaryView, runView } from './views.js';

interface WireFrame {
  runId: string;
  seq: number;
  type: string;
  timestamp: string;
  nodeId?: string;
  payload: Record<string, unknown>;
}

const KEEPALIVE_MS = 15_000;

@Controller('api/v1/runs')
@UseGuards(AuthGuard)
export class RunsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  /**
   * Start a run from exactly one of `yaml` (playbook YAML; `playbook` is its
   * deprecated name), `playbook_id` (+ `playbook_revision`), `workflow_steps`
   * or a raw `plan`; the planner compiles or validates it (400 naming the field).
   */
  @Post()
  async start(
    @CurrentUser() principal: common.Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') key?: string,
  ) {
    const input = parseBody(StartRunSchema, deprecatedField(body, 'playbook', 'yaml', res));
    assertInputsFit(input.inputs, this.deps.kit.config.RUN_INPUT_MAX_BYTES);
    const plan = await compileRunPlan(this.deps.clients.planner, principal, input);
    const { run } = await call(
      this.deps.clients.orchestrator.startRun({
        principal,
        plan,
        inputs: input.inputs,
        idempotencyKey: key?.slice(0, 200) || randomUUID(),
        runContext: input.run_context ?? '',
        outputContract: input.output_contract,
        goalCondition: input.goal_condition,
        policies: input.policies,
      }),
    );
    return { run: runView(run!) };
  }

  /**
   * Plan version N+1: `{yaml?, rationale?, policy_id?, expected_plan_version?}`.
   * Completed steps are locked; a plan that changes one is a 400 naming it.
   */
  @Post(':id/replan')
  @HttpCode(200)
  async replan(
    @CurrentUser() principal: common.Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
    @Headers('idempotency-key') key?: string,
  ) {
    const input = parseBody(ReplanRunSchema, deprecatedField(body ?? {}, 'playbook', 'yaml', res));
    const { planner, orchestrator } = this.deps.clients;
    const plan = input.yaml !== undefined ? (await call(planner.compilePlaybook({ principal, yaml: input.yaml }))).plan : undefined;
    const { run } = await call(
      orchestrator.replanRun({
        principal,
        runId: id,
        plan,
        rationale: input.rationale ?? '',
        policyId: input.policy_id ?? '',
        expectedPlanVersion: input.expected_plan_version ?? 0,
        idempotencyKey: key?.slice(0, 200) ?? '',
      }),
    );
    return { run: runView(run!) };
  }

  /** Fire a runtime policy whose trigger is `manual`. */
  @Post(':id/policies/:policyId/trigger')
  @HttpCode(200)
  async triggerPolicy(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Param('policyId') policyId: string, @Headers('idempotency-key') key?: string) {
    const { run } = await call(this.deps.clients.orchestrator.triggerPolicy({ principal, runId: id, policyId, idempotencyKey: key?.slice(0, 200) ?? '' }));
    return { run: runView(run!) };
  }

  @Get()
  list(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    return listRuns(this.deps, principal, query);
  }

  @Post(':id/pause')
  @HttpCode(200)
  async pause(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { run } = await call(this.deps.clients.orchestrator.pauseRun({ principal, runId: id, idempotencyKey: randomUUID() }));
    return { run: runView(run!) };
  }

  /** Resume a paused run, or decide a waiting approval: `{decision: approve|reject, node_id?, instructions?}`. */
  @Post(':id/resume')
  @HttpCode(200)
  async resume(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const input = parseBody(ResumeRunSchema, body);
    const decision =
      input.decision === 'approve'
        ? orchestrator.Decision.DECISION_APPROVE
        : input.decision === 'reject'
          ? orchestrator.Decision.DECISION_REJECT
          : orchestrator.Decision.DECISION_UNSPECIFIED;
    const { run } = await call(
      this.deps.clients.orchestrator.resumeRun({
        principal,
        runId: id,
        nodeId: input.node_id ?? '',
        decision,
        instructions: input.instructions ?? '',
        idempotencyKey: randomUUID(),
      }),
    );
    return { run: runView(run!) };
  }

  @Get(':id')
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { run } = await call(this.deps.clients.orchestrator.getRun({ principal, runId: id }));
    return { run: runView(run!) };
  }

  @Post(':id/cancel')
  @HttpCode(200)
  async cancel(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { run } = await call(this.deps.clients.orchestrator.cancelRun({ principal, runId: id, idempotencyKey: randomUUID() }));
    return { run: runView(run!) };
  }

  /**
   * Server-Sent Events fed from NATS: the run's retained frames are replayed
   * and followed; each seq is sent once, in order, after Last-Event-ID. A gap
   * that persists (e.g. a frame still in an outbox) is filled from the
   * orchestrator's event log. The stream ends after the `complete` frame.
   */
  @Get(':id/events')
  async events(
    @CurrentUser() principal: common.Principal,
    @Param('id') id: string,
    @Req() req: Request,
    @Res() res: Response,
    @Query('lastEventId') lastEventIdQuery?: string,
  ) {
    const after = parseLastEventId((req.headers['last-event-id'] as string | undefined) ?? lastEventIdQuery);
    if (after === null) throw AppError.invalid('Last-Event-ID', 'must be a non-negative integer (the id of the last frame received)');
    const { orchestrator } = this.deps.clients;
    const { run } = await call(orchestrator.getRun({ principal, runId: id }));

    res.status(200).set({
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();

    let closed = false;
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    const end = () => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      res.end();
    };
    // Registered first: a client may leave while the subscription is being set up.
    const follower: { current?: Closeable } = {};
    req.on('close', () => {
      void follower.current?.close();
      end();
    });
    follower.current = await followRunFrames<WireFrame>({
      bus: this.deps.kit.bus,
      subjects: this.deps.kit.subjects,
      log: this.deps.kit.log,
      runId: run!.id,
      afterSeq: after,
      idleCheckMs: this.deps.kit.config.SSE_IDLE_RECHECK_MS,
      fetchAfter: async (seq) => {
        const { events } = await call(orchestrator.listRunEvents({ principal, runId: id, afterSeq: String(seq) }));
        return events.map((e) => ({ ...e, seq: Number(e.seq), payload: e.payload ?? {}, ...(e.nodeId ? { nodeId: e.nodeId } : {}) }));
      },
      onFrame: (f) => res.write(`id: ${f.seq}\nevent: ${f.type}\ndata: ${JSON.stringify(toSseFrame(f))}\n\n`),
      onEnd: end,
    });
    if (closed) await follower.current.close();
  }
}

/** The seeds' frame: `{type, id, timestamp, payload, runId, nodeId?}`. */
function toSseFrame(f: WireFrame) {
  return { type: f.type, id: String(f.seq), timestamp: isoTimestamp(f.timestamp), payload: f.payload, runId: f.runId, ...(f.nodeId ? { nodeId: f.nodeId } : {}) };
}

/** The seed's execution routes (agent-factory-architecture.md §3) over the same runs. */
@Controller('api/agent-factory/executions')
@UseGuards(AuthGuard)
export class ExecutionsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Get()
  list(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    return listRuns(this.deps, principal, query);
  }

  @Get(':id')
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { run } = await call(this.deps.clients.orchestrator.getRun({ principal, runId: id }));
    return { execution: runView(run!) };
  }
}

/** GET /runs and GET /executions: the caller's runs, newest first. */
async function listRuns(deps: GatewayDeps, principal: common.Principal, query: unknown) {
  const q = parseBody(ListRunsQuery, query);
  const statuses = q.status.map((s) => orchestrator.runStatusFromJSON(`RUN_STATUS_${s.toUpperCase()}`));
  const taskStatuses = q.task_status.map((s) => orchestrator.taskStatusFromJSON(`TASK_STATUS_${s.toUpperCase()}`));
  // An agent's runs: only of a profile the caller may see (404 otherwise, as for the profile itself).
  if (q.agent_profile_id) await call(deps.clients.profiles.authorizeProfile({ principal, profileId: q.agent_profile_id, action: 'view' }));
  const res = await call(
    deps.clients.orchestrator.listRuns({ principal, statuses, taskStatuses, pageSize: q.page_size ?? 0, pageToken: q.page_token ?? '', ...(q.agent_profile_id ? { agentProfileId: q.agent_profile_id } : {}), ...(q.playbook_id ? { playbookId: q.playbook_id } : {}) }),
  );
  return { runs: res.runs.map(runSummaryView), next_page_token: res.nextPageToken || null };
}
