import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { approval, type common } from '@af/contracts';
import { InternalRpc } from '@af/service-kit';
import type { RequestCommands } from '../app/request-commands.js';
import type { RequestQueries } from '../app/request-queries.js';
import type { Principal } from '../domain/request.js';
import { decisionName, kindName, statusName, toWireRequest } from './request.mapper.js';

const DEPS = Symbol('ApprovalDeps');

interface Deps {
  commands: RequestCommands;
  queries: RequestQueries;
}

const principalOf = (p: common.Principal | undefined): Principal => ({ userId: p?.userId ?? '', teamIds: p?.teamIds ?? [] });

@Controller()
@approval.ApprovalServiceControllerMethods()
export class ApprovalController implements approval.ApprovalServiceController {
  constructor(@Inject(DEPS) private readonly deps: Deps) {}

  // Requests are opened by the orchestrator for its runs' nodes, never by users or other teams' services.
  @InternalRpc('orchestrator')
  async createRequest(req: approval.CreateRequestRequest): Promise<approval.CreateRequestResponse> {
    const { request, created } = await this.deps.commands.create({
      ownerUserId: req.principal?.userId ?? '',
      kind: kindName(req.kind),
      runId: req.runId,
      nodeId: req.nodeId,
      runContext: req.runContext,
      operatorPrompt: req.operatorPrompt,
      details: req.details ?? {},
      outputSchema: req.outputSchema && Object.keys(req.outputSchema).length ? req.outputSchema : null,
      capabilityId: req.capabilityId,
      teamIds: req.teamIds ?? [],
      allowTeamDecisions: req.allowTeamDecisions,
      assigneeUserIds: req.assigneeUserIds ?? [],
      timeoutSeconds: req.timeoutSeconds,
      autoApprove: req.autoApprove,
      idempotencyKey: req.idempotencyKey,
    });
    return { request: toWireRequest(request), created };
  }

  async getRequest(req: approval.GetRequestRequest): Promise<approval.GetRequestResponse> {
    return { request: toWireRequest(await this.deps.commands.get(principalOf(req.principal), req.requestId)) };
  }

  async listRequests(req: approval.ListRequestsRequest): Promise<approval.ListRequestsResponse> {
    const { requests, nextPageToken } = await this.deps.queries.list({
      principal: principalOf(req.principal),
      kinds: (req.kinds ?? []).map((k, i) => kindName(k, `kinds[${i}]`)),
      statuses: (req.statuses ?? []).map((s, i) => statusName(s, `statuses[${i}]`)),
      capabilityId: req.capabilityId,
      runId: req.runId,
      pageSize: req.pageSize,
      pageToken: req.pageToken,
    });
    return { requests: requests.map(toWireRequest), nextPageToken };
  }

  async decide(req: approval.DecideRequest): Promise<approval.DecideResponse> {
    const request = await this.deps.commands.decide({
      principal: principalOf(req.principal),
      requestId: req.requestId,
      idempotencyKey: req.idempotencyKey,
      decision: decisionName(req.decision),
      instructions: req.instructions,
      reason: req.reason,
    });
    return { request: toWireRequest(request) };
  }

  async submit(req: approval.SubmitRequest): Promise<approval.SubmitResponse> {
    const request = await this.deps.commands.submit({ principal: principalOf(req.principal), requestId: req.requestId, idempotencyKey: req.idempotencyKey, outputJson: req.outputJson });
    return { request: toWireRequest(request) };
  }

  async decline(req: approval.DeclineRequest): Promise<approval.DeclineResponse> {
    const request = await this.deps.commands.decline({
      principal: principalOf(req.principal),
      requestId: req.requestId,
      idempotencyKey: req.idempotencyKey,
      reasonCode: req.reasonCode,
      reason: req.reason,
    });
    return { request: toWireRequest(request) };
  }

  async answer(req: approval.AnswerRequest): Promise<approval.AnswerResponse> {
    const request = await this.deps.commands.answer({ principal: principalOf(req.principal), requestId: req.requestId, idempotencyKey: req.idempotencyKey, answer: req.answer });
    return { request: toWireRequest(request) };
  }
}

@Module({})
export class ApprovalModule {
  static forRoot(deps: Deps): DynamicModule {
    return { module: ApprovalModule, controllers: [ApprovalController], providers: [{ provide: DEPS, useValue: deps }] };
  }
}
