/**
 * Running agents over HTTP: the chat stream (`POST /api/async/orchestrator/stream`:
 * the chosen strategy, the run's frames, the final answer, with the
 * conversation kept), `POST /profiles/{id}/test` (a query against the profile,
 * answered with the run), the profile's runs and its journal. A profile the
 * caller may not see is 404 everywhere, its runs and journal included.
 */
import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { orchestrator, type common } from '@af/contracts';
import { AppError, call, type Closeable } from '@af/service-kit';
import type { Request, Response } from 'express';
import { AuthGuard, CurrentUser } from '../http/auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../http/deps.js';
import { parseBody } from '../http/validation.js';
import { runSummaryView, runView } from '../http/views.js';
import { AgentRunner, noModelMessage, selectionView, type RunFrameIn } from './agent-runner.js';
import { ChatSchema, JournalQuery, ProfileRunsQuery, ProfileTestSchema } from './agents.schemas.js';

const KEEPALIVE_MS = 15_000;
/** How long POST /profiles/{id}/test waits for its run to end before answering it as it is. */
const TEST_WAIT_MS = 120_000;

@Controller('api/async/orchestrator')
@UseGuards(AuthGuard)
export class ChatController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  private runner() {
    return new AgentRunner(this.deps);
  }

  /**
   * SSE: `strategy`, then `clarify` (a missing input: no run) or `run` and
   * the run's frames, then `journal`, `answer` and `done`. An unknown
   * @handle, an agent you may not use or a conversation not yours is an HTTP
   * error before the stream opens.
   */
  @Post('stream')
  async stream(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Req() req: Request, @Res() res: Response, @Headers('idempotency-key') key?: string) {
    const input = parseBody(ChatSchema, body);
    const conversationId = input.conversation_id ?? '';
    if (conversationId) await call(this.deps.clients.profiles.getConversation({ principal, conversationId }));
    const runner = this.runner();
    const prepared = await runner.prepare(principal, input.message, input.agent_profile_id ?? '', input.inputs ?? {}, conversationId);

    res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    let closed = false;
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    const follower: { current?: Closeable } = {};
    const end = () => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      res.end();
    };
    // A client that leaves does not stop the run, nor its journal entry: the follower goes on until the run ends.
    req.on('close', end);
    let n = 0;
    const write = (type: string, payload: Record<string, unknown>, extra: { runId?: string; nodeId?: string; id?: string; timestamp?: string } = {}) => {
      if (closed) return;
      const frame = { type, id: extra.id ?? `chat-${++n}`, timestamp: extra.timestamp ?? new Date().toISOString(), payload, ...(extra.runId ? { runId: extra.runId } : {}), ...(extra.nodeId ? { nodeId: extra.nodeId } : {}) };
      res.write(`event: ${type}\ndata: ${JSON.stringify(frame)}\n\n`);
    };
    const close = async (answer: string, error: boolean, runId: string | null) => {
      write('answer', { text: answer, error, run_id: runId }, runId ? { runId } : {});
      let conversation = conversationId;
      try {
        conversation = await this.remember(principal, conversationId, input.message, answer, prepared.agentProfileId, runId);
      } catch (err) {
        this.deps.kit.log.warn({ err }, 'chat: the conversation could not be stored');
      }
      write('done', { conversation_id: conversation });
      end();
    };

    write('strategy', selectionView(prepared) as unknown as Record<string, unknown>);
    if (prepared.clarify && Object.keys(prepared.clarify).length) {
      write('clarify', prepared.clarify);
      return close(String(prepared.clarify.message ?? 'A required input is missing.'), false, null);
    }
    if (prepared.needsModel) return close(noModelMessage(prepared), true, null);
    let runId: string;
    try {
      runId = await runner.start(principal, prepared, key);
    } catch (err) {
      return close(`agent '@${prepared.handle}' could not start: ${err instanceof Error ? err.message : String(err)}`, true, null);
    }
    write('run', { run_id: runId }, { runId });
    follower.current = await runner.follow(
      principal,
      runId,
      (f: RunFrameIn) => {
        write(f.type, f.payload, { runId, id: String(f.seq), timestamp: f.timestamp, ...(f.nodeId ? { nodeId: f.nodeId } : {}) });
        // Parked on a person: the journal says so now (awaiting_approval); the entry is replaced when the run ends.
        if (f.type === 'hitl_request') void this.interimEntry(runner, principal, runId, prepared).then((entry) => entry && write('journal', entry, { runId }));
      },
      () => {
        void runner
          .finish(principal, runId, prepared)
          .then(async (out) => {
            void follower.current?.close();
            write('journal', out.entry, { runId });
            await close(out.answer, out.run.status === orchestrator.RunStatus.RUN_STATUS_FAILED || out.run.status === orchestrator.RunStatus.RUN_STATUS_CANCELLED, runId);
          })
          .catch(async (err: unknown) => {
            void follower.current?.close();
            return close(`the run ended, but its journal entry could not be written: ${err instanceof Error ? err.message : String(err)}`, true, runId);
          });
      },
    );
  }

  private async interimEntry(runner: AgentRunner, principal: common.Principal, runId: string, prepared: Parameters<AgentRunner['finish']>[2]): Promise<Record<string, unknown> | undefined> {
    try {
      return (await runner.finish(principal, runId, prepared)).entry;
    } catch (err) {
      this.deps.kit.log.warn({ err, runId }, 'chat: the awaiting_approval journal entry could not be written');
      return undefined;
    }
  }

  private async remember(principal: common.Principal, conversationId: string, message: string, answer: string, agentProfileId: string, runId: string | null): Promise<string> {
    const out = await call(
      this.deps.clients.profiles.appendConversation({
        principal,
        conversationId,
        messages: [
          { role: 'user', content: message, agent_profile_id: agentProfileId },
          { role: 'agent', content: answer, agent_profile_id: agentProfileId, ...(runId ? { run_id: runId } : {}) },
        ],
      }),
    );
    return out.conversationId;
  }
}

@Controller('api/agent-factory')
@UseGuards(AuthGuard)
export class AgentsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  /** A method, not a getter: the OpenAPI spec reads the prototype's members without an instance. */
  private client() {
    return this.deps.clients.profiles;
  }

  /** Runs `query` against the profile and answers the run (waiting for it to end), its journal entry and answer. */
  @Post('profiles/:id/test')
  @HttpCode(200)
  async test(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(ProfileTestSchema, body);
    const runner = new AgentRunner(this.deps);
    const prepared = await runner.prepare(principal, input.query, id, input.inputs ?? {}, '');
    const selection = selectionView(prepared);
    if (prepared.clarify && Object.keys(prepared.clarify).length) return { selection, clarify: prepared.clarify, run: null, answer: null, journal_entry: null };
    if (prepared.needsModel) throw new AppError('FAILED_PRECONDITION', noModelMessage(prepared), { violations: [{ field: 'strategy', reason: noModelMessage(prepared), code: 'no_model' }] });
    const runId = await runner.start(principal, prepared, key);
    // The journal entry is written when the run ends, whether or not this request still waits for it.
    const finished = this.finishWhenEnded(runner, principal, runId, prepared);
    const out = await Promise.race([finished, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), TEST_WAIT_MS).unref())]);
    if (!out) {
      finished.catch((err: unknown) => this.deps.kit.log.warn({ err, runId }, 'agent test run: the journal entry could not be written'));
      const { run } = await call(this.deps.clients.orchestrator.getRun({ principal, runId }));
      return { selection, clarify: null, run: runView(run!), answer: null, journal_entry: null };
    }
    return { selection, clarify: null, run: runView(out.run), answer: out.answer, journal_entry: out.entry };
  }

  /** Your runs of the agent, newest first. */
  @Get('profiles/:id/runs')
  async runs(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Query() query: unknown) {
    const q = parseBody(ProfileRunsQuery, query);
    await call(this.client().authorizeProfile({ principal, profileId: id, action: 'view' }));
    const res = await call(this.deps.clients.orchestrator.listRuns({ principal, statuses: [], taskStatuses: [], pageSize: q.page_size ?? 0, pageToken: q.page_token ?? '', agentProfileId: id }));
    return { runs: res.runs.map(runSummaryView), next_page_token: res.nextPageToken || null };
  }

  @Get('profiles/:id/journal')
  async journal(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Query() query: unknown) {
    const q = parseBody(JournalQuery, query);
    const out = await call(
      this.client().listJournal({
        principal,
        agentProfileId: id,
        pageSize: q.page_size ?? 0,
        pageToken: q.page_token ?? '',
        taskStatuses: q.task_status,
        entity: q.entity ?? '',
        dateFrom: q.date_from ?? '',
        dateTo: q.date_to ?? '',
      }),
    );
    return { entries: out.entries, next_page_token: out.nextPageToken || null };
  }

  @Get('profiles/:id/journal/summary')
  async journalSummary(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const out = await call(this.client().journalSummary({ principal, agentProfileId: id }));
    return { summary: out.summary ?? {} };
  }

  @Get('journal/:entryId')
  async entry(@CurrentUser() principal: common.Principal, @Param('entryId') entryId: string) {
    const out = await call(this.client().getJournalEntry({ principal, id: entryId }));
    return { entry: out.entry ?? {} };
  }

  private finishWhenEnded(runner: AgentRunner, principal: common.Principal, runId: string, prepared: Parameters<AgentRunner['finish']>[2]) {
    return new Promise<Awaited<ReturnType<AgentRunner['finish']>>>((resolve, reject) => {
      const follower: { current?: Closeable; ended?: boolean } = {};
      runner
        .follow(principal, runId, () => undefined, () => {
          follower.ended = true;
          void follower.current?.close();
          runner.finish(principal, runId, prepared).then(resolve, reject);
        })
        .then((f) => {
          follower.current = f;
          if (follower.ended) void f.close();
        }, reject);
    });
  }
}


