/**
 * Questions answered by the master agent: `POST /query` (the answer as
 * JSON; agents that need an approval are skipped and the answer says why)
 * and `POST /query/stream` (SSE: `plan`, the run's frames with the HITL
 * events under their seed names, `token` as the composer writes, `answer`
 * only when the checks changed text already sent, `sources`, `done`), and
 * `GET /query/memory`. Bad input, an unknown conversation or session, an
 * Idempotency-Key reused for another request and a deployment without a
 * chat model are HTTP errors before anything runs.
 */
import { Body, Controller, Get, Headers, HttpCode, Inject, Post, Res, UseGuards } from '@nestjs/common';
import type { common } from '@af/contracts';
import { AppError, call } from '@af/service-kit';
import type { Response } from 'express';
import { AuthGuard, CurrentUser } from '../http/auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../http/deps.js';
import { parseBody } from '../http/validation.js';
import { queryEventOf } from './query-events.js';
import { planView, QueryRunner } from './query-runner.js';
import { QuerySchema } from './query.schemas.js';

const KEEPALIVE_MS = 15_000;
/** How long POST /query waits for its agents (no approvals are asked there). */
const QUERY_WAIT_MS = 120_000;

@Controller('query')
@UseGuards(AuthGuard)
export class QueryController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  private runner() {
    return new QueryRunner(this.deps);
  }

  @Post()
  @HttpCode(200)
  async query(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(QuerySchema, body);
    const runner = this.runner();
    const planned = await runner.plan(principal, input, false, key);
    const runId = await runner.start(principal, planned);
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      runner.ended(principal, runId).then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), QUERY_WAIT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    if (!ended) throw new AppError('DEADLINE_EXCEEDED', `run ${runId} of query ${planned.queryId} did not end within ${QUERY_WAIT_MS / 1000} s; follow it with POST /query/stream or GET /api/v1/runs/${runId}`);
    const result = await runner.compose(principal, planned.queryId, runId);
    return { ...result, plan: planView(planned, runId) };
  }

  @Get('memory')
  async memory(@CurrentUser() principal: common.Principal) {
    const out = await call(this.deps.clients.query.getMemory({ principal }));
    return { memory: out.memory ?? {} };
  }

  @Post('stream')
  async stream(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Res() res: Response, @Headers('idempotency-key') key?: string) {
    const input = parseBody(QuerySchema, body);
    const runner = this.runner();
    const planned = await runner.plan(principal, input, true, key);
    const runId = await runner.start(principal, planned);

    res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    let closed = false;
    // Set when the client leaves: cancels the composer's stream (the model stops; nothing is stored then).
    const left = new AbortController();
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    const end = () => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      res.end();
    };
    res.on('close', () => {
      if (!res.writableFinished) left.abort();
      end();
    });
    let n = 0;
    const write = (type: string, payload: Record<string, unknown>, extra: { id?: string; timestamp?: string; nodeId?: string } = {}) => {
      if (closed) return;
      const frame = { type, id: extra.id ?? `query-${++n}`, timestamp: extra.timestamp ?? new Date().toISOString(), payload, runId, ...(extra.nodeId ? { nodeId: extra.nodeId } : {}) };
      res.write(`event: ${type}\ndata: ${JSON.stringify(frame)}\n\n`);
    };

    write('plan', planView(planned, runId));
    try {
      await runner.ended(principal, runId, (f) => {
        const e = queryEventOf(f);
        write(e.type, e.payload, { id: String(f.seq), timestamp: f.timestamp, ...(e.nodeId ? { nodeId: e.nodeId } : {}) });
      });
      // A client that left while the run ran does not stop it: the answer is still composed (unary) and stored.
      if (left.signal.aborted) {
        await runner.compose(principal, planned.queryId, runId);
        return;
      }
      const { result, replacesTokens } = await runner.composeStream(principal, planned.queryId, runId, (text) => write('token', { text }), left.signal);
      if (replacesTokens) write('answer', { text: result.answer ?? '' });
      write('sources', { sources: result.sources ?? [], citations: result.citations ?? [] });
      write('done', {
        query_id: planned.queryId,
        conversation_id: planned.conversationId,
        session_id: planned.sessionId,
        run_id: runId,
        not_done: result.not_done ?? [],
        invalid_citations: result.invalid_citations ?? [],
        memory: result.memory ?? {},
      });
    } catch (err) {
      if (left.signal.aborted) this.deps.kit.log.info({ runId, queryId: planned.queryId }, 'query stream: the client left while the answer was written; composing stopped');
      else this.deps.kit.log.warn({ err, runId, queryId: planned.queryId }, 'query stream: no answer');
      write('error', { message: err instanceof Error ? err.message : String(err), code: err instanceof AppError ? err.code : 'INTERNAL' });
    } finally {
      end();
    }
  }
}
