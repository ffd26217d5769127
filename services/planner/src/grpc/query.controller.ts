/** QueryService over gRPC: thin, the pipeline is app/query-pipeline.ts. */
import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { query } from '@af/contracts';
import { Observable } from 'rxjs';
import type { QueryPipeline } from '../app/query-pipeline.js';
import type { RunNode } from '../domain/query/compose.js';
import { toStruct, wirePlan } from './flex.mapper.js';
import { callerOf } from './profile.mapper.js';

const PIPELINE = Symbol('QueryPipeline');

@Controller()
@query.QueryServiceControllerMethods()
export class QueryController implements query.QueryServiceController {
  constructor(@Inject(PIPELINE) private readonly pipeline: QueryPipeline) {}

  async planQuery(req: query.PlanQueryRequest): Promise<query.PlanQueryResponse> {
    const out = await this.pipeline.plan(callerOf(req.principal), { query: req.query, conversationId: req.conversationId, sessionId: req.sessionId, streaming: req.streaming, idempotencyKey: req.idempotencyKey });
    return { queryId: out.queryId, conversationId: out.conversationId, sessionId: out.sessionId, plan: wirePlan(out.plan), masterPlan: toStruct(out.masterPlan), memory: toStruct(out.memory), replayed: out.replayed ?? false };
  }

  async composeAnswer(req: query.ComposeAnswerRequest): Promise<query.ComposeAnswerResponse> {
    const run = (req.run ?? {}) as { nodes?: RunNode[] };
    return { result: toStruct(await this.pipeline.compose(callerOf(req.principal), req.queryId, req.runId, run)) };
  }

  /** Tokens as the model writes them, then the result; the caller cancelling the call aborts the model. */
  composeAnswerStream(req: query.ComposeAnswerStreamRequest): Observable<query.ComposeAnswerStreamResponse> {
    return new Observable<query.ComposeAnswerStreamResponse>((subscriber) => {
      const abort = new AbortController();
      const run = (req.run ?? {}) as { nodes?: RunNode[] };
      this.pipeline
        .composeStream(callerOf(req.principal), req.queryId, req.runId, run, (token) => subscriber.next({ token }), abort.signal)
        .then(
          (out) => {
            subscriber.next({ result: { result: toStruct(out.result), replacesTokens: out.replacesTokens } });
            subscriber.complete();
          },
          (err: unknown) => subscriber.error(err),
        );
      return () => abort.abort(new Error('the caller cancelled the stream'));
    });
  }

  async getMemory(req: query.GetMemoryRequest): Promise<query.GetMemoryResponse> {
    return { memory: toStruct(await this.pipeline.memory(callerOf(req.principal))) };
  }
}

@Module({})
export class QueryModule {
  static forRoot(pipeline: QueryPipeline): DynamicModule {
    return { module: QueryModule, controllers: [QueryController], providers: [{ provide: PIPELINE, useValue: pipeline }] };
  }
}
