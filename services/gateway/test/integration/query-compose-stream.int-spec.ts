/**
 * QueryRunner.composeStream against a planner stand-in over loopback gRPC:
 * tokens arrive one by one, then the result; a failure mid-stream rejects
 * with the planner's error; and leaving (the abort signal) cancels the
 * gRPC call, which the server sees as its stream being unsubscribed. Real:
 * grpc-js, NestJS, the proto contracts. Fake: the orchestrator's GetRun.
 */
import 'reflect-metadata';
import { Controller, Module, type DynamicModule } from '@nestjs/common';
import { query } from '@af/contracts';
import { AppError, createLogger, startGrpcServer, type GrpcServer } from '@af/service-kit';
import { freePort } from '@af/testing';
import { Observable, of } from 'rxjs';
import type { GatewayDeps } from '../../src/http/deps.js';
import { QueryRunner } from '../../src/query/query-runner.js';

/** Resolved when the server's stream for a `hang` query is torn down (the client cancelled). */
let cancelled: () => void = () => undefined;
let seenCancel: Promise<void>;
const requests: query.ComposeAnswerStreamRequest[] = [];

@Controller()
@query.QueryServiceControllerMethods()
class PlannerStandIn {
  planQuery(): never {
    throw new AppError('UNIMPLEMENTED', 'not in this test');
  }
  composeAnswer(): never {
    throw new AppError('UNIMPLEMENTED', 'not in this test');
  }
  getMemory(): never {
    throw new AppError('UNIMPLEMENTED', 'not in this test');
  }
  composeAnswerStream(req: query.ComposeAnswerStreamRequest): Observable<query.ComposeAnswerStreamResponse> {
    requests.push(req);
    return new Observable((sub) => {
      sub.next({ token: 'Every' });
      sub.next({ token: ' 90 days' });
      if (req.queryId === 'ok') {
        sub.next({ token: ' [1].' });
        sub.next({ result: { result: { answer: 'Every 90 days [1].', sources: [] }, replacesTokens: false } });
        sub.complete();
      } else if (req.queryId === 'fail') {
        sub.error(new AppError('FAILED_PRECONDITION', "the composer's model failed while writing the answer: provider overloaded (529)"));
      }
      // `hang`: the model is still writing; only the client's cancel ends it.
      return () => cancelled();
    });
  }
}

@Module({})
class StandInModule {
  static forRoot(): DynamicModule {
    return { module: StandInModule, controllers: [PlannerStandIn] };
  }
}

let server: GrpcServer;
let runner: QueryRunner;
const principal = { userId: 'alice', teamIds: [] };

beforeAll(async () => {
  const port = await freePort();
  server = await startGrpcServer({ module: StandInModule.forRoot(), packages: ['planner'], host: '127.0.0.1', port, log: createLogger('planner-stand-in', 'warn'), auth: null });
  const deps = {
    kit: { config: { PLANNER_URL: `127.0.0.1:${port}` } },
    serviceAuth: { tokenFor: () => 'principal-token' },
    clients: { orchestrator: { getRun: () => of({ run: { status: 3, error: '', nodes: [{ nodeId: 'rag_agent_0', status: 3, error: '', outputJson: '{"documents":[]}' }] } }) } },
  } as unknown as GatewayDeps;
  runner = new QueryRunner(deps);
});

afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  seenCancel = new Promise<void>((r) => (cancelled = r));
});

describe('QueryRunner.composeStream', () => {
  it('passes each token on as it comes, then resolves with the result', async () => {
    const tokens: string[] = [];
    const out = await runner.composeStream(principal, 'ok', 'run-1', (t) => tokens.push(t), new AbortController().signal);
    expect(tokens).toEqual(['Every', ' 90 days', ' [1].']);
    expect(out).toEqual({ result: { answer: 'Every 90 days [1].', sources: [] }, replacesTokens: false });
    // The ended run's view went to the planner with the caller.
    expect(requests.at(-1)).toMatchObject({ principal, queryId: 'ok', runId: 'run-1', run: { nodes: [{ node_id: 'rag_agent_0', output: { documents: [] } }] } });
  });

  it("rejects with the planner's error after the tokens sent before it", async () => {
    const tokens: string[] = [];
    const err = await runner.composeStream(principal, 'fail', 'run-1', (t) => tokens.push(t), new AbortController().signal).catch((e: unknown) => e);
    expect(tokens).toEqual(['Every', ' 90 days']);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('provider overloaded (529)') });
  });

  it('cancels the planner\'s stream when the client leaves', async () => {
    const left = new AbortController();
    const tokens: string[] = [];
    const done = runner.composeStream(
      principal,
      'hang',
      'run-1',
      (t) => {
        tokens.push(t);
        if (tokens.length === 2) left.abort();
      },
      left.signal,
    );
    await expect(done).rejects.toMatchObject({ code: 'CANCELLED' });
    // The server's stream was torn down: the planner stops its model there.
    await seenCancel;
    expect(tokens).toEqual(['Every', ' 90 days']);
  });
});
