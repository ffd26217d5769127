/** The gRPC face of an ActionDispatcher: a Nest module any service adds to its gRPC server. */
import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { action } from '@af/contracts';
import type { ActionDispatcher } from './action-dispatcher.js';

const DISPATCHER = Symbol('ActionDispatcher');

@Controller()
@action.ActionServiceControllerMethods()
export class ActionController implements action.ActionServiceController {
  constructor(@Inject(DISPATCHER) private readonly dispatcher: ActionDispatcher) {}

  async execute(req: action.ExecuteRequest): Promise<action.ExecuteResponse> {
    const { outputs, replayed } = await this.dispatcher.execute({
      action: req.action,
      inputs: req.inputs ?? {},
      params: req.params ?? {},
      principal: { userId: req.principal?.userId ?? '', teamIds: req.principal?.teamIds ?? [] },
      idempotencyKey: req.idempotencyKey,
      runId: req.runId,
      nodeId: req.nodeId,
      attempt: req.attempt,
      timeoutMs: req.timeoutMs,
    });
    return { outputs, replayed };
  }

  async listActions(): Promise<action.ListActionsResponse> {
    const actions = (await this.dispatcher.catalog()).map((a) => ({ name: a.name, version: a.version, sideEffects: a.sideEffects, contract: a.contract }));
    return { service: this.dispatcher.service, actions };
  }
}

@Module({})
export class ActionServiceModule {
  static forRoot(dispatcher: ActionDispatcher): DynamicModule {
    return { module: ActionServiceModule, controllers: [ActionController], providers: [{ provide: DISPATCHER, useValue: dispatcher }] };
  }
}
