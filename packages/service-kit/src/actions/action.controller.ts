/** The gRPC face of an ActionDispatcher: a Nest module any service adds to its gRPC server. */
import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { action } from '@af/contracts';
import { Observable } from 'rxjs';
import { AppError, ERROR_METADATA_KEY, toGrpcError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PrincipalVerifier } from '../auth/service-auth.js';
import type { ActionDispatcher, CallControl, ExecuteAction } from './action-dispatcher.js';

const DISPATCHER = Symbol('ActionDispatcher');
const OPTIONS = Symbol('ActionServiceOptions');

export interface ActionServiceOptions {
  /**
   * Verifies each ExecuteStream call's principal token, as the server's guard
   * does for Execute's metadata (the same verifier as startGrpcServer's
   * `auth`). `null` only where the server has no auth either (test stand-ins):
   * the message's principal is taken as sent.
   */
  auth: PrincipalVerifier | null;
  /** Where errors that are not AppErrors (bugs in a handler) are logged. */
  log?: Logger;
}

@Controller()
@action.ActionServiceControllerMethods()
export class ActionController implements action.ActionServiceController {
  constructor(
    @Inject(DISPATCHER) private readonly dispatcher: ActionDispatcher,
    @Inject(OPTIONS) private readonly options: ActionServiceOptions,
  ) {}

  async execute(req: action.ExecuteRequest): Promise<action.ExecuteResponse> {
    const { outputs, replayed } = await this.dispatcher.execute(toExecuteAction(req));
    return { outputs, replayed };
  }

  async listActions(): Promise<action.ListActionsResponse> {
    const actions = (await this.dispatcher.catalog()).map((a) => ({ name: a.name, version: a.version, sideEffects: a.sideEffects, contract: a.contract }));
    return { service: this.dispatcher.service, actions };
  }

  /**
   * Many Execute calls over one stream (opened with a valid token: the
   * server's guard checks it like any call's): each message carries calls
   * and cancels, each call with its own principal token, answered when it
   * ends, in any order; answers that end in one turn of the event loop go
   * back together in one message. A call with neither an action nor a
   * cancel is answered at once (the caller's handshake). Calls still running
   * when the caller goes away are aborted.
   */
  executeStream(requests: Observable<action.ExecuteStreamRequest>): Observable<action.ExecuteStreamResponse> {
    return new Observable<action.ExecuteStreamResponse>((out) => {
      const open = new Map<number, CallControl>();
      const cancel = (control: CallControl | undefined) => {
        if (!control) return;
        control.cancelled = true;
        control.cancel?.();
      };
      let ended = false;
      let closed = false;
      let answers: action.StreamAnswer[] = [];
      let flushing: NodeJS.Immediate | undefined;
      const flush = () => {
        flushing = undefined;
        if (closed) return;
        if (answers.length > 0) {
          const batch = answers;
          answers = [];
          out.next({ answers: batch });
        }
        if (ended && open.size === 0) {
          closed = true;
          out.complete();
        }
      };
      const answer = (a: action.StreamAnswer) => {
        answers.push(a);
        flushing ??= setImmediate(flush);
      };
      const receive = (msg: action.StreamCall) => {
        if (msg.cancel) {
          cancel(open.get(msg.callId));
          return;
        }
        if (!msg.execute) {
          answer({ callId: msg.callId });
          return;
        }
        cancel(open.get(msg.callId));
        const control: CallControl = {};
        open.set(msg.callId, control);
        void this.call(msg, control).then((result) => {
          if (open.get(msg.callId) !== control) return;
          open.delete(msg.callId);
          answer(result);
        });
      };
      const subscription = requests.subscribe({
        next: (batch) => {
          for (const msg of batch.calls) receive(msg);
        },
        error: () => {
          // The caller went away: nobody waits for the answers.
          for (const control of open.values()) cancel(control);
          open.clear();
          closed = true;
          out.complete();
        },
        complete: () => {
          ended = true;
          flushing ??= setImmediate(flush);
        },
      });
      return () => {
        closed = true;
        if (flushing) clearImmediate(flushing);
        subscription.unsubscribe();
        for (const control of open.values()) cancel(control);
        open.clear();
      };
    });
  }

  private async call(msg: action.StreamCall, control: CallControl): Promise<action.StreamAnswer> {
    try {
      const req = toExecuteAction(msg.execute!);
      if (this.options.auth) {
        if (!msg.principalToken) throw new AppError('UNAUTHENTICATED', 'principal_token is required: every call on ExecuteStream carries its own principal token');
        const claims = this.options.auth.verify(msg.principalToken);
        req.principal = { userId: claims.principal.userId, teamIds: [...claims.principal.teamIds] };
      }
      const { outputs, replayed } = await this.dispatcher.execute(req, control);
      return { callId: msg.callId, response: { outputs, replayed } };
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'INTERNAL') this.options.log?.error({ err, action: msg.execute?.action }, 'unhandled error in an ExecuteStream call');
      const status = toGrpcError(err);
      const detail = status.metadata.get(ERROR_METADATA_KEY)[0];
      return { callId: msg.callId, error: { code: status.code, message: status.message, detail: Buffer.isBuffer(detail) ? detail : Buffer.from(String(detail ?? '')) } };
    }
  }
}

function toExecuteAction(req: action.ExecuteRequest): ExecuteAction {
  return {
    action: req.action,
    inputs: req.inputs ?? {},
    params: req.params ?? {},
    principal: { userId: req.principal?.userId ?? '', teamIds: req.principal?.teamIds ?? [] },
    idempotencyKey: req.idempotencyKey,
    runId: req.runId,
    nodeId: req.nodeId,
    attempt: req.attempt,
    timeoutMs: req.timeoutMs,
  };
}

@Module({})
export class ActionServiceModule {
  static forRoot(dispatcher: ActionDispatcher, options: ActionServiceOptions): DynamicModule {
    return {
      module: ActionServiceModule,
      controllers: [ActionController],
      providers: [
        { provide: DISPATCHER, useValue: dispatcher },
        { provide: OPTIONS, useValue: options },
      ],
    };
  }
}
