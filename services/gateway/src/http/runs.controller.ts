import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { call, AppError, decodeJson, type Closeable } from '@af/service-kit';
import { orchestrator, type common } from '@af/contracts';
import type { Request, Response } from 'express';
import { FrameSequencer, parseLastEventId } from '@af/service-kit';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { ListRunsQuery, ResumeRunSchema, StartRunSchema } from './schemas.js';
import { parseBody } from './validation.js';
import { runSummaryView, runView } from './views.js';

interface WireFrame {
  runId: string;
  seq: number;
  type: string;
  timestamp: string;
  nodeId?: string;
  payload: Record<string, unknown>;
}

const TERMINAL_FRAME = 'complete';
const GAP_FILL_MS = 1500;
const KEEPALIVE_MS = 15_000;

@Controller('api/v1/runs')
@UseGuards(AuthGuard)
export class RunsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Post()
  async start(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(StartRunSchema, body);
    const { planner, orchestrator } = this.deps.clients;
    const yaml = input.playbook ?? (await call(planner.getPlaybook({ principal, id: input.playbook_id! }))).playbook!.yaml;
    const compiled = await call(planner.compilePlaybook({ principal, yaml }));
    const { run } = await call(
      orchestrator.startRun({
        principal,
        plan: compiled.plan,
        inputs: input.inputs,
        idempotencyKey: key?.slice(0, 200) || randomUUID(),
        runContext: input.run_context ?? '',
      }),
    );
    return { run: runView(run!) };
  }

  @Get()
  async list(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(ListRunsQuery, query);
    const statuses = q.status.map((s) => orchestrator.runStatusFromJSON(`RUN_STATUS_${s.toUpperCase()}`));
    const res = await call(
      this.deps.clients.orchestrator.listRuns({ principal, statuses, pageSize: q.page_size ?? 0, pageToken: q.page_token ?? '' }),
    );
    return { runs: res.runs.map(runSummaryView), next_page_token: res.nextPageToken || null };
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

    const sequencer = new FrameSequencer<WireFrame>(after);
    let closed = false;
    const sub: { current?: Closeable } = {};
    let gapTimer: NodeJS.Timeout | undefined;
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    const finish = () => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      if (gapTimer) clearTimeout(gapTimer);
      void sub.current?.close().catch(() => undefined);
      res.end();
    };
    req.on('close', finish);

    const deliver = (frame: WireFrame) => {
      if (closed) return;
      for (const f of sequencer.accept(frame)) {
        res.write(`id: ${f.seq}\nevent: ${f.type}\ndata: ${JSON.stringify(toSseFrame(f))}\n\n`);
        if (f.type === TERMINAL_FRAME) return finish();
      }
      if (sequencer.hasGap() && !gapTimer) {
        gapTimer = setTimeout(() => {
          gapTimer = undefined;
          void fillGap();
        }, GAP_FILL_MS);
      }
    };
    const fillGap = async () => {
      try {
        const { events } = await call(orchestrator.listRunEvents({ principal, runId: id, afterSeq: String(sequencer.last) }));
        for (const e of events) deliver({ ...e, seq: Number(e.seq), payload: e.payload ?? {}, ...(e.nodeId ? { nodeId: e.nodeId } : {}) });
      } catch (err) {
        this.deps.kit.log.warn({ err, runId: id }, 'gap fill failed');
      }
    };

    sub.current = await this.deps.kit.bus.subscribe(this.deps.kit.subjects.runAll(run!.id), (m) => {
      try {
        deliver(decodeJson<WireFrame>(m.data));
      } catch (err) {
        this.deps.kit.log.warn({ err, subject: m.subject }, 'undecodable run frame');
      }
    });
    if (closed) await sub.current.close();
  }
}

/** The seeds' frame: `{type, id, timestamp, payload, runId, nodeId?}`. */
function toSseFrame(f: WireFrame) {
  return { type: f.type, id: String(f.seq), timestamp: f.timestamp, payload: f.payload, runId: f.runId, ...(f.nodeId ? { nodeId: f.nodeId } : {}) };
}

/** The seed's execution routes (agent-factory-architecture.md §3) over the same runs. */
@Controller('api/agent-factory/executions')
@UseGuards(AuthGuard)
export class ExecutionsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Get()
  async list(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    return new RunsController(this.deps).list(principal, query);
  }

  @Get(':id')
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { run } = await call(this.deps.clients.orchestrator.getRun({ principal, runId: id }));
    return { execution: runView(run!) };
  }
}
