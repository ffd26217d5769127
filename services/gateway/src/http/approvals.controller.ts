/**
 * Everything that waits for a person, over HTTP, in front of the approval
 * service: the seed's approval queue (agent-factory-architecture.md §3), the
 * flex human-task and HITL routes (flex spec §10, §15) and the seed's
 * `/hitl/respond` (multi-agent-rag). Requests the caller may not act on are
 * 404; acting on one that is no longer pending is 409.
 */
import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { approval, type common } from '@af/contracts';
import { AppError, call } from '@af/service-kit';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { ApproveSchema, DeclineTaskSchema, HitlRespondSchema, HitlResolveSchema, ListApprovalsQuery, ListTasksQuery, RejectSchema, RunResumeSchema } from './approval.schemas.js';
import { approvalView, flexRequestView, kindOf } from './approval.views.js';
import { deprecatedField, parseBody } from './validation.js';

const kindEnum = (k: string) => approval.requestKindFromJSON(`REQUEST_KIND_${k.toUpperCase()}`);
const statusEnum = (s: string) => approval.requestStatusFromJSON(`REQUEST_STATUS_${s.toUpperCase()}`);
const keyOf = (header: string | undefined) => (header ?? '').slice(0, 200);

/** Approve / reject through the approval service; a reject's `reason` is stored as the resolution's `reason`. */
async function decide(deps: GatewayDeps, principal: common.Principal, requestId: string, d: 'approve' | 'reject', instructions: string, key: string, reason = '') {
  const decision = d === 'approve' ? approval.Decision.DECISION_APPROVE : approval.Decision.DECISION_REJECT;
  return (await call(deps.clients.approvals.decide({ principal, requestId, decision, instructions, reason, idempotencyKey: key }))).request!;
}

@Controller('api/agent-factory/approvals')
@UseGuards(AuthGuard)
export class ApprovalsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  /** Pending approvals (and clarifications) you may act on, newest first (?kind=&status=&run_id=, `all` lifts a filter). */
  @Get()
  async list(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(ListApprovalsQuery, query);
    const res = await call(
      this.deps.clients.approvals.listRequests({
        principal,
        kinds: q.kind.map(kindEnum),
        statuses: q.status.map(statusEnum),
        capabilityId: '',
        runId: q.run_id ?? '',
        pageSize: q.page_size ?? 0,
        pageToken: q.page_token ?? '',
      }),
    );
    return { approvals: res.requests.map(approvalView), next_page_token: res.nextPageToken || null };
  }

  @Get(':id')
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    return { approval: approvalView((await call(this.deps.clients.approvals.getRequest({ principal, requestId: id }))).request!) };
  }

  @Post(':id/approve')
  @HttpCode(200)
  async approve(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(ApproveSchema, body);
    return { approval: approvalView(await decide(this.deps, principal, id, 'approve', input.instructions ?? '', keyOf(key))) };
  }

  @Post(':id/reject')
  @HttpCode(200)
  async reject(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response, @Headers('idempotency-key') key?: string) {
    const input = parseBody(RejectSchema, deprecatedField(body, 'instructions', 'reason', res));
    return { approval: approvalView(await decide(this.deps, principal, id, 'reject', '', keyOf(key), input.reason ?? '')) };
  }
}

@Controller('api/v1/flex')
@UseGuards(AuthGuard)
export class FlexHitlController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  /** Human tasks you may work on (?capabilityId=&status=&runId=). */
  @Get('tasks')
  async tasks(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(ListTasksQuery, query);
    const res = await call(
      this.deps.clients.approvals.listRequests({
        principal,
        kinds: [approval.RequestKind.REQUEST_KIND_HUMAN_TASK],
        statuses: q.status.map(statusEnum),
        capabilityId: q.capabilityId ?? '',
        runId: q.runId ?? '',
        pageSize: q.page_size ?? 0,
        pageToken: q.page_token ?? '',
      }),
    );
    return { tasks: res.requests.map(flexRequestView), nextPageToken: res.nextPageToken || null };
  }

  /** A structured decline (reason code); the run ends according to the task's policy. */
  @Post('tasks/:taskId/decline')
  @HttpCode(200)
  async decline(@CurrentUser() principal: common.Principal, @Param('taskId') taskId: string, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(DeclineTaskSchema, body);
    const { request } = await call(this.deps.clients.approvals.decline({ principal, requestId: taskId, reasonCode: input.reasonCode, reason: input.reason ?? '', idempotencyKey: keyOf(key) }));
    return { task: flexRequestView(request!) };
  }

  /** An operator's decision from the SPA: `{requestId, decision, instructions?}`, or `{requestId, answer}` for a clarification. */
  @Post('hitl/resolve')
  @HttpCode(200)
  async resolve(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(HitlResolveSchema, body);
    const request =
      input.answer !== undefined
        ? (await call(this.deps.clients.approvals.answer({ principal, requestId: input.requestId, answer: input.answer, idempotencyKey: keyOf(key) }))).request!
        : await decide(this.deps, principal, input.requestId, input.decision!, input.instructions ?? '', keyOf(key), input.reason ?? '');
    return { request: flexRequestView(request) };
  }

  /**
   * Hand in what a paused run waits for: a human task's `output`, a
   * clarification's `answer`, or an approval's `decision`. The request is
   * `requestId` / `taskId`, else the run's only pending one (`nodeId` narrows).
   */
  @Post('run.resume')
  @HttpCode(200)
  async resume(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(RunResumeSchema, body);
    const { approvals, orchestrator } = this.deps.clients;
    const request = await this.pendingRequest(principal, input);
    if (input.expectedPlanVersion !== undefined) {
      // Read as the run's owner: an assignee may act on the request without seeing the run.
      const { run } = await call(orchestrator.getRun({ principal: { userId: request.ownerUserId, teamIds: [] }, runId: input.runId }));
      if (run!.planVersion !== input.expectedPlanVersion) {
        throw new AppError('FAILED_PRECONDITION', `run ${input.runId} is at plan version ${run!.planVersion}, not ${input.expectedPlanVersion}`, {
          violations: [{ field: 'expectedPlanVersion', reason: `is not the run's current plan version (${run!.planVersion})` }],
        });
      }
    }
    const idempotencyKey = keyOf(key);
    let done: approval.Request;
    switch (kindOf(request)) {
      case 'human_task':
        if (input.output === undefined) throw AppError.invalid('output', `is required: request ${request.id} is a human task`);
        done = (await call(approvals.submit({ principal, requestId: request.id, outputJson: JSON.stringify(input.output), idempotencyKey }))).request!;
        break;
      case 'clarify':
        if (input.answer === undefined) throw AppError.invalid('answer', `is required: request ${request.id} is a clarification`);
        done = (await call(approvals.answer({ principal, requestId: request.id, answer: input.answer, idempotencyKey }))).request!;
        break;
      default:
        if (!input.decision) throw AppError.invalid('decision', `is required: request ${request.id} is an approval (approve or reject)`);
        done = await decide(this.deps, principal, request.id, input.decision, input.instructions ?? '', idempotencyKey, input.reason ?? '');
    }
    return { runId: input.runId, request: flexRequestView(done) };
  }

  private async pendingRequest(principal: common.Principal, input: { runId: string; requestId?: string | undefined; taskId?: string | undefined; nodeId?: string | undefined }) {
    const { approvals, orchestrator } = this.deps.clients;
    const id = input.requestId ?? input.taskId;
    if (id) {
      const { request } = await call(approvals.getRequest({ principal, requestId: id }));
      if (request!.runId !== input.runId) throw AppError.invalid(input.requestId ? 'requestId' : 'taskId', `request ${id} belongs to another run`);
      return request!;
    }
    const { requests } = await call(
      approvals.listRequests({ principal, kinds: [], statuses: [approval.RequestStatus.REQUEST_STATUS_PENDING], capabilityId: '', runId: input.runId, pageSize: 200, pageToken: '' }),
    );
    const candidates = input.nodeId ? requests.filter((r) => r.nodeId === input.nodeId) : requests;
    if (candidates.length === 1) return candidates[0]!;
    if (candidates.length > 1) throw AppError.invalid('requestId', `several requests of run ${input.runId} are pending (${candidates.map((r) => `${r.id} at ${r.nodeId}`).join(', ')}): name one`);
    // Nothing you may act on: a stranger's run is not found; your own run just has nothing pending.
    await call(orchestrator.getRun({ principal, runId: input.runId })).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND' && !requests.length) throw err;
    });
    throw new AppError('FAILED_PRECONDITION', `nothing of run ${input.runId}${input.nodeId ? ` at node ${input.nodeId}` : ''} is waiting for a person`);
  }
}

/** The seed's HITL endpoint (multi-agent-rag): `{request_id, decision: approved | denied, instructions?}`. */
@Controller('hitl')
@UseGuards(AuthGuard)
export class HitlRespondController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Post('respond')
  @HttpCode(200)
  async respond(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(HitlRespondSchema, body);
    const r = await decide(this.deps, principal, input.request_id, input.decision === 'approved' ? 'approve' : 'reject', input.instructions ?? '', keyOf(key));
    return { status: 'ok', request_id: r.id, decision: input.decision, approval: approvalView(r) };
  }
}
