/**
 * The flex routes (flex spec §10): capability registration and the registry,
 * the facet catalog, planning, the sandbox metadata, `run.stream` (plan, then
 * run on the orchestrator, streaming every frame as SSE) and the redacted
 * run debugging view. Human task routes, HITL resolution and `run.resume`
 * live elsewhere.
 */
import { randomUUID } from 'node:crypto';
import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { orchestrator, planner, type common } from '@af/contracts';
import { AppError, call, followRunFrames, type Closeable } from '@af/service-kit';
import type { Request, Response } from 'express';
import { isoTimestamp } from '../domain/frame-time.js';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { DeregisterQuery, FlexJsonObjectSchema, HeartbeatBodySchema, ListCapabilitiesQuery, ListFacetsQuery, PlanQuery, UpsertFacetsSchema } from './flex.schemas.js';
import { capabilityView, facetView, planResultView } from './flex.views.js';
import { assertInputsFit, parseBody } from './validation.js';

interface OrchestratorFrame {
  runId: string;
  seq: number;
  type: string;
  timestamp: string;
  nodeId?: string;
  payload: Record<string, unknown>;
}

const KEEPALIVE_MS = 15_000;
const SECRET_KEY = /token|secret|api[-_]?key|password|passwd|authorization|credential|private[-_]?key/i;

/** Values under secret-looking keys become `[redacted]` (§10.1 debugging view). */
export function redactKeys(value: unknown, depth = 0): unknown {
  if (depth > 64) return '[truncated]';
  if (Array.isArray(value)) return value.map((v) => redactKeys(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : redactKeys(v, depth + 1)]));
  }
  return value;
}

/** Planner violations name `envelope.…`; over HTTP the body is the envelope. */
function bodyRelative(err: unknown): unknown {
  if (!(err instanceof AppError) || err.code !== 'INVALID_ARGUMENT') return err;
  const strip = (f: string) => (f === 'envelope' ? '(body)' : f.replace(/^envelope\./, ''));
  return new AppError(err.code, err.message.replace(/^envelope\./, ''), { violations: err.violations.map((v) => ({ ...v, field: strip(v.field) })) });
}

const lower = (name: string, prefix: string) => name.replace(prefix, '').toLowerCase();

@Controller('api/v1/flex')
@UseGuards(AuthGuard)
export class FlexController {
  private readonly registry: planner.CapabilityRegistryServiceClient;

  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {
    this.registry = deps.clients.registry;
  }

  /**
   * §9.1: agents advertise or refresh their CapabilityRegistration — the
   * caller's own, or a team's with `teamId` (`visibility: team`); the planner
   * checks the ownership fields against the principal.
   */
  @Post('capabilities/register')
  async register(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key: string | undefined, @Res({ passthrough: true }) res: Response) {
    const registration = parseBody(FlexJsonObjectSchema, body);
    const r = await call(this.registry.registerCapability({ principal, registration, idempotencyKey: key?.slice(0, 200) || randomUUID() }));
    res.status(r.created ? 201 : 200);
    return { ok: true, created: r.created, capability: capabilityView(r.capability!) };
  }

  @Post('capabilities/:id/heartbeat')
  @HttpCode(200)
  async heartbeat(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const input = parseBody(HeartbeatBodySchema, body ?? {});
    const r = await call(this.registry.heartbeat({ principal, capabilityId: id, instanceId: input.instanceId ?? '', idempotencyKey: randomUUID() }));
    return { ok: true, capability: capabilityView(r.capability!) };
  }

  @Delete('capabilities/:id')
  async deregister(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Query() query: unknown) {
    const q = parseBody(DeregisterQuery, query);
    const r = await call(this.registry.deregisterCapability({ principal, capabilityId: id, instanceId: q.instance_id ?? '', idempotencyKey: randomUUID() }));
    return { ok: true, capability: capabilityView(r.capability!) };
  }

  @Get('capabilities')
  async listCapabilities(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(ListCapabilitiesQuery, query);
    const r = await call(this.registry.listCapabilities({ principal, includeInactive: q.include_inactive ?? false, catalogTag: q.catalog_tag ?? '', produces: q.produces ?? '' }));
    return { capabilities: r.capabilities.map(capabilityView) };
  }

  @Get('capabilities/:id')
  async getCapability(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const r = await call(this.registry.getCapability({ principal, capabilityId: id }));
    return { capability: capabilityView(r.capability!) };
  }

  @Get('facets')
  async listFacets(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(ListFacetsQuery, query);
    const r = await call(this.registry.listFacets({ principal, catalogTag: q.catalog_tag ?? '' }));
    return { facets: r.facets.map(facetView), catalogRevision: r.catalogRevision };
  }

  @Post('facets')
  @HttpCode(200)
  async upsertFacets(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const input = parseBody(UpsertFacetsSchema, body);
    const r = await call(this.registry.upsertFacets({ principal, facets: input.facets, collection: input.collection ?? '', idempotencyKey: randomUUID(), visibility: input.visibility ?? '', teamId: input.teamId ?? '' }));
    return { facets: r.facets.map(facetView), catalogRevision: r.catalogRevision };
  }

  /** Planning only: the TaskEnvelope → `{accepted, plan, planVersion, events, diagnostics}`. */
  @Post('plan')
  @HttpCode(200)
  async plan(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Query() query: unknown) {
    const q = parseBody(PlanQuery, query);
    const envelope = parseBody(FlexJsonObjectSchema, body);
    const r = await this.planTask(principal, envelope, q.planner, q.max_attempts);
    return planResultView(r);
  }

  /** §11 "Developer Sandbox": facet catalog and capability snapshots. */
  @Get('sandbox/metadata')
  async sandboxMetadata(@CurrentUser() principal: common.Principal) {
    const [facets, all] = await Promise.all([call(this.registry.listFacets({ principal, catalogTag: '' })), call(this.registry.listCapabilities({ principal, includeInactive: true, catalogTag: '', produces: '' }))]);
    const capabilities = all.capabilities.map(capabilityView);
    return {
      facets: facets.facets.map(facetView),
      catalogRevision: facets.catalogRevision,
      capabilities: { active: capabilities.filter((c) => c.status === 'active'), all: capabilities },
      capabilityCatalog: capabilities.map((c) => ({ capabilityId: c.capabilityId, displayName: c.displayName, summary: c.summary, kind: c.agentType, inputFacets: c.inputContract, outputFacets: c.outputContract })),
      templates: [],
    };
  }

  /**
   * §10.0.1: plan the envelope, start the run, stream `{type, id, timestamp,
   * payload, runId, nodeId?}` frames until `complete`. A bad envelope (or a
   * plan the orchestrator refuses) is an HTTP error before the stream opens;
   * `constraints.resumeRunId` follows an existing run instead of planning.
   */
  @Post('run.stream')
  async runStream(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Req() req: Request, @Res() res: Response, @Headers('idempotency-key') key?: string) {
    const envelope = parseBody(FlexJsonObjectSchema, body);
    const { orchestrator: orch } = this.deps.clients;
    const constraints = (envelope.constraints ?? {}) as Record<string, unknown>;
    const threadId = typeof envelope.threadId === 'string' ? envelope.threadId : undefined;
    const own: Array<{ type: string; payload: Record<string, unknown> }> = [];
    let runId: string;
    if (typeof constraints.resumeRunId === 'string' && constraints.resumeRunId) {
      const { run } = await call(orch.getRun({ principal, runId: constraints.resumeRunId }));
      runId = run!.id;
      own.push({ type: 'plan_generated', payload: { planVersion: run!.planVersion, metadata: { resumed: true }, nodes: run!.nodes.map((n) => ({ id: n.nodeId, status: lower(orchestrator.nodeStatusToJSON(n.status), 'NODE_STATUS_') })) } });
    } else {
      assertInputsFit(envelope.inputs ?? {}, this.deps.kit.config.RUN_INPUT_MAX_BYTES, 'inputs');
      const planned = await this.planTask(principal, envelope);
      own.push(...planned.events.map((e) => ({ type: e.type, payload: e.payload ?? {} })));
      if (!planned.accepted) {
        // Nothing runs: the stream tells why and ends.
        return this.openStream(req, res, undefined, threadId, [...own, { type: 'complete', payload: { status: 'failed', error: 'the planner could not produce a valid plan', diagnostics: planned.diagnostics ?? {} } }]);
      }
      const { run } = await call(
        orch.startRun({
          principal,
          plan: planned.plan,
          inputs: (envelope.inputs ?? {}) as Record<string, unknown>,
          idempotencyKey: key?.slice(0, 200) || randomUUID(),
          runContext: 'interactive',
          outputContract: planned.outputContract,
          goalCondition: planned.goalCondition,
          policies: (planned.policies?.runtime ?? []) as Record<string, unknown>[],
        }),
      );
      runId = run!.id;
    }
    return this.openStream(req, res, runId, threadId, own);
  }

  /** §10.1: a redacted snapshot of the run for support tooling. */
  @Get('runs/:id')
  async debugRun(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { orchestrator: orch } = this.deps.clients;
    const [{ run }, { events }] = await Promise.all([call(orch.getRun({ principal, runId: id })), call(orch.listRunEvents({ principal, runId: id, afterSeq: '0' }))]);
    const nodes = run!.nodes.map((n) => ({
      nodeId: n.nodeId,
      status: lower(orchestrator.nodeStatusToJSON(n.status), 'NODE_STATUS_'),
      attempt: n.attempt,
      output: n.outputJson ? redactKeys(JSON.parse(n.outputJson)) : null,
      error: n.error || null,
      startedAt: n.startedAt || null,
      finishedAt: n.finishedAt || null,
    }));
    const pending = nodes.filter((n) => !['completed', 'skipped', 'failed', 'cancelled'].includes(n.status)).map((n) => n.nodeId);
    const versions = events.filter((e) => e.type === 'plan_updated' || e.type === 'start').map((e) => ({ seq: Number(e.seq), type: e.type, timestamp: e.timestamp, version: (e.payload as Record<string, unknown> | undefined)?.version ?? (e.type === 'start' ? 1 : undefined) }));
    return {
      ok: true,
      run: redactKeys({ runId: run!.id, status: lower(orchestrator.runStatusToJSON(run!.status), 'RUN_STATUS_'), planVersion: run!.planVersion, inputs: run!.inputs ?? {}, error: run!.error || null, createdAt: run!.createdAt, updatedAt: run!.updatedAt }),
      output: redactKeys(run!.outputs ?? {}),
      goalConditionResults: run!.goalConditionResults,
      planVersions: versions,
      latestSnapshot: { version: run!.planVersion, pendingNodeIds: pending },
      nodes,
    };
  }

  private async planTask(principal: common.Principal, envelope: Record<string, unknown>, plannerName?: string, maxAttempts?: number): Promise<planner.PlanTaskResponse> {
    try {
      return await call(
        this.deps.clients.planner.planTask({ principal, envelope, previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: maxAttempts ?? 0, planner: plannerName ?? '' }),
        120_000,
      );
    } catch (err) {
      throw bodyRelative(err);
    }
  }

  /** SSE: our frames first (start, planner lifecycle), then the run's frames from the orchestrator (its own `start` folded into ours). */
  private async openStream(req: Request, res: Response, runId: string | undefined, threadId: string | undefined, own: Array<{ type: string; payload: Record<string, unknown> }>): Promise<void> {
    res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    let closed = false;
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    const end = () => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      res.end();
    };
    const follower: { current?: Closeable } = {};
    req.on('close', () => {
      void follower.current?.close();
      end();
    });
    let n = 0;
    const write = (type: string, payload: Record<string, unknown>, id: string, timestamp = new Date().toISOString(), nodeId?: string, sseId?: string) => {
      if (closed) return;
      const frame = { type, id, timestamp, payload, ...(runId ? { runId } : {}), ...(nodeId ? { nodeId } : {}) };
      res.write(`${sseId ? `id: ${sseId}\n` : ''}event: ${type}\ndata: ${JSON.stringify(frame)}\n\n`);
    };
    write('start', { ...(runId ? { runId } : {}), ...(threadId ? { threadId } : {}) }, `gw-${++n}`);
    for (const f of own) write(f.type, f.payload, `gw-${++n}`);
    if (!runId) return end();
    const { orchestrator: orch } = this.deps.clients;
    const principal = (req as Request & { user?: { userId: string; teamIds: string[] } }).user!;
    follower.current = await followRunFrames<OrchestratorFrame>({
      bus: this.deps.kit.bus,
      subjects: this.deps.kit.subjects,
      log: this.deps.kit.log,
      runId,
      afterSeq: 0,
      fetchAfter: async (seq) => {
        const { events } = await call(orch.listRunEvents({ principal, runId, afterSeq: String(seq) }));
        return events.map((e) => ({ ...e, seq: Number(e.seq), payload: e.payload ?? {}, ...(e.nodeId ? { nodeId: e.nodeId } : {}) }));
      },
      onFrame: (f) => {
        if (f.type !== 'start') write(f.type, f.payload, String(f.seq), isoTimestamp(f.timestamp), f.nodeId, String(f.seq));
      },
      onEnd: end,
    });
    if (closed) await follower.current.close();
  }
}
