/**
 * Questions answered by the master agent (POST /query, /query/stream):
 *
 * - `plan`: loads the caller's long-term memory and recent conversation,
 *   asks the model for `{analysis, execution_plan}` over the agents this
 *   deployment can run, compiles it with the master-plan compiler and
 *   realises each agent as the node that runs it (a rejected draft is sent
 *   back to the model once with the issues). The memory extractor then runs
 *   while the orchestrator runs the agents.
 * - `compose`: once the run ended, numbers the sources, lets the model
 *   write the answer with `[n]` citations, checks them, explains agents
 *   that did not run, and stores the exchange, the record and every third
 *   turn a rolling summary.
 *
 * Without a chat model nothing is planned: FAILED_PRECONDITION, never an
 * answer made up.
 */
import { createHash } from 'node:crypto';
import { compileMasterPlan, type PlanGraph, type PlanIssue } from '@af/plan';
import { runStructuredTask, streamTextTask, type BaseChatModel } from '@af/llm';
import { AppError } from '@af/service-kit';
import type { Caller } from '../domain/profiles/sharing.js';
import {
  answerChunks,
  checkAnswer,
  COMPOSER_INSTRUCTIONS,
  COMPOSER_SCHEMA,
  composerContext,
  extractiveSummary,
  notDone,
  numberSources,
  StreamedAnswer,
  type CheckedAnswer,
  type NotDone,
  type PlannedAgent,
  type RunNode,
  type Source,
} from '../domain/query/compose.js';
import { masterContext, masterInstructions, MASTER_PLAN_SCHEMA } from '../domain/query/master-prompt.js';
import { EXTRACTION_INSTRUCTIONS, EXTRACTION_SCHEMA, parseExtraction, type LongTermMemory } from '../domain/query/memory.js';
import { availableAgents, prepareAgents } from '../domain/query/query-agents.js';
import { realisePlan } from '../domain/query/realise-plan.js';
import type { QueryRecordRow, QueryRepository } from '../infra/query.repository.js';
import type { ConnectorToolSource } from '../infra/query-tools.js';
import type { Conversations } from './conversations.js';

const MAX_QUERY = 4_000;
const PLAN_ATTEMPTS = 2;
const SUMMARY_EVERY = 3;

export interface QueryLogger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
}

export interface QueryPipelineDeps {
  model?: BaseChatModel;
  repo: QueryRepository;
  conversations: Pick<Conversations, 'append' | 'history'>;
  tools: ConnectorToolSource;
  /** Whether a service of this deployment serves the action now. */
  served: (action: string) => boolean;
  /** Refuses a plan whose actions nothing serves (INVALID_ARGUMENT action_unavailable). */
  checkActions: (plan: unknown) => Promise<void>;
  log: QueryLogger;
  /** How long an Idempotency-Key answers its first request (seconds). */
  idempotencyTtlSeconds?: number;
}

export interface PlannedQuery {
  queryId: string;
  conversationId: string;
  sessionId: string;
  plan: PlanGraph;
  masterPlan: Record<string, unknown>;
  memory: LongTermMemory;
  /** The stored plan of an earlier request with the same Idempotency-Key. */
  replayed?: boolean;
}

export interface StreamedResult {
  result: Record<string, unknown>;
  /** The tokens sent are not the start of `result.answer` (the client shows the answer instead). */
  replacesTokens: boolean;
}

/** What composing needs once the run ended. */
interface Composition {
  record: QueryRecordRow;
  model: BaseChatModel;
  sources: Source[];
  missing: NotDone[];
  context: Record<string, unknown>;
}

const IDEMPOTENCY_HEADER = 'Idempotency-Key';
const DEFAULT_KEY_TTL_SECONDS = 24 * 3600;

/** What makes two requests with one key the same request. */
const fingerprintOf = (input: { query: string; conversationId: string; sessionId: string; streaming: boolean }) =>
  createHash('sha256').update(JSON.stringify([input.query.trim(), input.conversationId, input.sessionId, input.streaming])).digest('hex');

export const NO_MODEL = 'answering a query needs a chat model and none is configured (LLM_PROVIDER is none): no plan was made and no answer was made up';

export class QueryPipeline {
  /** Memory extractions still running, by query id: the composer waits for its own before storing. */
  private readonly extracting = new Map<string, Promise<void>>();

  constructor(private readonly deps: QueryPipelineDeps) {}

  /**
   * Plans the query; with an idempotency key, the same request again (same
   * user, key and request, before the key expires) gets the first plan back
   * without planning, and another request with that key is refused.
   */
  async plan(caller: Caller, input: { query: string; conversationId: string; sessionId: string; streaming: boolean; idempotencyKey?: string }): Promise<PlannedQuery> {
    const key = input.idempotencyKey?.slice(0, 200) ?? '';
    if (!key || !caller.userId) return this.planOnce(caller, input);
    const { repo } = this.deps;
    const fingerprint = fingerprintOf(input);
    const claim = await repo.claimKey(caller.userId, key, fingerprint, this.deps.idempotencyTtlSeconds ?? DEFAULT_KEY_TTL_SECONDS);
    if (!claim.claimed) {
      if (claim.fingerprint !== fingerprint) {
        const reason = 'was already used with a different request (query, conversation_id, session_id or route); use a new key for a new question';
        throw new AppError('ALREADY_EXISTS', `${IDEMPOTENCY_HEADER} ${reason}`, { violations: [{ field: IDEMPOTENCY_HEADER, reason, code: 'idempotency_key_reused' }], retryable: false });
      }
      const record = claim.queryId ? await repo.record(caller.userId, claim.queryId) : undefined;
      if (!record || !claim.plan) {
        const reason = 'the first request with this key is still being planned; retry shortly';
        throw new AppError('ABORTED', `${IDEMPOTENCY_HEADER}: ${reason}`, { violations: [{ field: IDEMPOTENCY_HEADER, reason, code: 'idempotency_key_in_progress' }], retryable: true, retryAfterMs: 1_000 });
      }
      this.deps.log.info({ queryId: record.id }, 'query: Idempotency-Key replayed; not planned again');
      return { queryId: record.id, conversationId: record.conversation_id, sessionId: record.session_id, plan: claim.plan as PlanGraph, masterPlan: record.master_plan, memory: record.memory, replayed: true };
    }
    try {
      const planned = await this.planOnce(caller, input);
      await repo.keyPlanned(caller.userId, key, planned.queryId, planned.plan);
      return planned;
    } catch (err) {
      await repo.releaseKey(caller.userId, key).catch((e: unknown) => this.deps.log.warn({ err: e }, 'query: could not release an Idempotency-Key'));
      throw err;
    }
  }

  private async planOnce(caller: Caller, input: { query: string; conversationId: string; sessionId: string; streaming: boolean }): Promise<PlannedQuery> {
    if (!caller.userId) throw new AppError('UNAUTHENTICATED', 'a user is required');
    const query = input.query.trim();
    if (!query) throw AppError.invalid('query', 'must not be empty');
    if (query.length > MAX_QUERY) throw AppError.invalid('query', `must be at most ${MAX_QUERY} characters`);
    const model = this.deps.model;
    if (!model) throw new AppError('FAILED_PRECONDITION', NO_MODEL, { violations: [{ field: 'model', reason: NO_MODEL, code: 'no_model' }] });
    const { repo } = this.deps;
    let sessionId = input.sessionId;
    if (sessionId && !(await repo.touchSession(caller.userId, sessionId))) throw AppError.notFound('session', sessionId);
    // A conversation not the caller's is NOT_FOUND here, before any model call.
    const history = input.conversationId ? await this.deps.conversations.history(caller, input.conversationId) : [];
    const memory = await repo.memory(caller.userId);
    const tools = await this.deps.tools(caller);
    const agents = availableAgents(this.deps.served, tools);

    let feedback: PlanIssue[] = [];
    let planned: { plan: PlanGraph; masterPlan: Record<string, unknown> } | undefined;
    for (let attempt = 1; attempt <= PLAN_ATTEMPTS && !planned; attempt++) {
      const context = { ...masterContext(query, memory, history), ...(feedback.length ? { previous_plan_issues: feedback.map((i) => i.message) } : {}) };
      const { output } = await runStructuredTask<Record<string, unknown>>({ model, instructions: masterInstructions(agents, tools), context, outputSchema: MASTER_PLAN_SCHEMA, schemaName: 'master_plan' }).catch((err: unknown) => {
        throw new AppError('FAILED_PRECONDITION', `the master agent could not plan: ${err instanceof Error ? err.message : String(err)}`, { retryable: false });
      });
      const raw = Array.isArray(output.execution_plan) ? (output.execution_plan as Record<string, unknown>[]) : [];
      const prepared = prepareAgents(raw, agents, tools);
      const masterPlan = { query, analysis: output.analysis ?? {}, execution_plan: prepared.agents };
      const compiled = prepared.issues.length ? undefined : compileMasterPlan(masterPlan, { composer: false });
      const realised = compiled?.ok ? realisePlan(compiled.plan, memory, query, input.streaming) : undefined;
      if (realised?.ok) planned = { plan: realised.plan, masterPlan };
      else feedback = prepared.issues.length ? prepared.issues : compiled && !compiled.ok ? compiled.errors : realised && !realised.ok ? realised.errors : [];
      if (!planned) this.deps.log.warn({ attempt, issues: feedback.map((i) => i.message) }, 'query: the master plan was rejected');
    }
    if (!planned) {
      throw new AppError('FAILED_PRECONDITION', `the master agent's plan was rejected ${PLAN_ATTEMPTS} times: ${feedback.map((i) => i.message).join('; ')}`, {
        violations: feedback.map((i) => ({ field: `master_plan.${i.field}`, reason: i.message, code: i.code })),
        retryable: false,
      });
    }
    await this.deps.checkActions(planned.plan);

    if (!sessionId) sessionId = await repo.createSession(caller.userId);
    const conversationId = input.conversationId || (await this.deps.conversations.append(caller, '', []));
    const queryId = await repo.createRecord({ user_id: caller.userId, session_id: sessionId, conversation_id: conversationId, query, streaming: input.streaming, master_plan: planned.masterPlan, memory });
    this.startExtraction(caller.userId, queryId, query, model);
    this.deps.log.info({ queryId, agents: (planned.masterPlan.execution_plan as unknown[]).length }, 'query planned');
    return { queryId, conversationId, sessionId, plan: planned.plan, masterPlan: planned.masterPlan, memory };
  }

  /** The answer to a planned query whose run ended (the same answer again when asked twice). */
  async compose(caller: Caller, queryId: string, runId: string, run: { nodes?: RunNode[] }): Promise<Record<string, unknown>> {
    const c = await this.composition(caller, queryId, runId, run);
    if (!('model' in c)) return c.stored;
    const { output } = await runStructuredTask<{ answer: string }>({
      model: c.model,
      instructions: COMPOSER_INSTRUCTIONS,
      context: c.context,
      outputSchema: COMPOSER_SCHEMA,
      schemaName: 'composer_output',
    }).catch((err: unknown) => {
      throw new AppError('FAILED_PRECONDITION', `the composer could not write the answer: ${err instanceof Error ? err.message : String(err)}`, { retryable: false });
    });
    return this.store(caller, c, runId, checkAnswer(output.answer, c.sources, c.missing));
  }

  /**
   * The same answer, streamed: `onToken` gets the answer's text as the model
   * writes it (plain text, unknown citations dropped on the way; a stored
   * answer is sent again word by word), then the result is stored and
   * returned. An abort (the caller left) stops the model and stores nothing;
   * a model failure mid-stream is FAILED_PRECONDITION naming the cause.
   */
  async composeStream(caller: Caller, queryId: string, runId: string, run: { nodes?: RunNode[] }, onToken: (text: string) => void, signal?: AbortSignal): Promise<StreamedResult> {
    const c = await this.composition(caller, queryId, runId, run);
    if (!('model' in c)) {
      for (const t of answerChunks(String(c.stored.answer ?? ''))) onToken(t);
      return { result: c.stored, replacesTokens: false };
    }
    const answer = new StreamedAnswer(c.sources, c.missing);
    try {
      for await (const chunk of streamTextTask({ model: c.model, instructions: COMPOSER_INSTRUCTIONS, context: c.context, ...(signal ? { signal } : {}) })) {
        const text = answer.push(chunk);
        if (text) onToken(text);
      }
    } catch (err) {
      if (signal?.aborted) {
        this.deps.log.info({ queryId, chars: answer.text.length }, 'query: composing stopped, the caller left; nothing stored');
        throw new AppError('CANCELLED', 'the caller cancelled the answer', { retryable: false });
      }
      const cause = err instanceof Error ? err.message : String(err);
      this.deps.log.warn({ queryId, chars: answer.text.length, cause }, 'query: the composer model failed mid-stream; nothing stored');
      throw new AppError('FAILED_PRECONDITION', `the composer's model failed while writing the answer: ${cause}`, { retryable: false });
    }
    const { checked, rest, replaces } = answer.end();
    if (rest) onToken(rest);
    const result = await this.store(caller, c, runId, checked);
    return { result, replacesTokens: replaces || result.answer !== checked.answer };
  }

  private async composition(caller: Caller, queryId: string, runId: string, run: { nodes?: RunNode[] }): Promise<Composition | { stored: Record<string, unknown> }> {
    const record = await this.deps.repo.record(caller.userId, queryId);
    if (!record) throw AppError.notFound('query', queryId);
    if (record.result) return { stored: record.result };
    if (!runId) throw AppError.invalid('run_id', 'is required');
    const model = this.deps.model;
    if (!model) throw new AppError('FAILED_PRECONDITION', NO_MODEL, { violations: [{ field: 'model', reason: NO_MODEL, code: 'no_model' }] });
    await this.extracting.get(queryId);
    const agents = (Array.isArray(record.master_plan.execution_plan) ? record.master_plan.execution_plan : []) as PlannedAgent[];
    const nodes = Array.isArray(run.nodes) ? run.nodes : [];
    const sources = numberSources(agents, nodes);
    const missing = notDone(agents, nodes);
    return { record, model, sources, missing, context: composerContext({ query: record.query, memory: record.memory, sources, agents, nodes, notDone: missing }) };
  }

  /** Stores the answer once (a concurrent composer's stored answer wins) and the exchange in the conversation. */
  private async store(caller: Caller, c: Composition, runId: string, checked: CheckedAnswer): Promise<Record<string, unknown>> {
    const { record, sources, missing } = c;
    const result = {
      query_id: record.id,
      run_id: runId,
      answer: checked.answer,
      sources,
      citations: checked.cited.map((n) => ({ n, chunk_id: sources[n - 1]!.chunk_id ?? null, document_id: sources[n - 1]!.document_id ?? null, url: sources[n - 1]!.url ?? null })),
      invalid_citations: checked.invalidCitations,
      not_done: missing,
      conversation_id: record.conversation_id,
      session_id: record.session_id,
      memory: await this.deps.repo.memory(caller.userId),
    };
    if (await this.deps.repo.answer(record.id, runId, result)) {
      await this.deps.conversations.append(caller, record.conversation_id, [
        { role: 'user', content: record.query },
        { role: 'agent', content: checked.answer, run_id: runId },
      ]);
      await this.summarise(record.conversation_id);
      return result;
    }
    return (await this.deps.repo.record(caller.userId, record.id))?.result ?? result;
  }

  memory(caller: Caller): Promise<LongTermMemory> {
    return this.deps.repo.memory(caller.userId);
  }

  private startExtraction(userId: string, queryId: string, query: string, model: BaseChatModel): void {
    const job = runStructuredTask({ model, instructions: EXTRACTION_INSTRUCTIONS, context: { message: query }, outputSchema: EXTRACTION_SCHEMA, schemaName: 'memory_extraction', maxAttempts: 1 })
      .then(async ({ output }) => {
        const found = parseExtraction(output);
        if (!found) return;
        await this.deps.repo.upsertMemory(userId, found);
        this.deps.log.info({ queryId, fields: [...Object.keys(found.critical_facts), ...Object.keys(found.preferences)] }, 'query: long-term memory updated');
      })
      .catch((err: unknown) => this.deps.log.warn({ err, queryId }, 'query: memory extraction failed; the answer does not depend on it'))
      .finally(() => this.extracting.delete(queryId));
    this.extracting.set(queryId, job);
  }

  private async summarise(conversationId: string): Promise<void> {
    const turns = await this.deps.repo.answeredTurns(conversationId);
    if (turns.length === 0 || turns.length % SUMMARY_EVERY !== 0) return;
    await this.deps.repo.addSummary(conversationId, extractiveSummary(turns.slice(-SUMMARY_EVERY)), turns.length);
  }
}
