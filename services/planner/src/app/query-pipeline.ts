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
import { compileMasterPlan, type PlanGraph, type PlanIssue } from '@af/plan';
import { runStructuredTask, type BaseChatModel } from '@af/llm';
import { AppError } from '@af/service-kit';
import type { Caller } from '../domain/profiles/sharing.js';
import { checkAnswer, COMPOSER_INSTRUCTIONS, COMPOSER_SCHEMA, composerContext, extractiveSummary, notDone, numberSources, type PlannedAgent, type RunNode } from '../domain/query/compose.js';
import { masterContext, masterInstructions, MASTER_PLAN_SCHEMA } from '../domain/query/master-prompt.js';
import { EXTRACTION_INSTRUCTIONS, EXTRACTION_SCHEMA, parseExtraction, type LongTermMemory } from '../domain/query/memory.js';
import { availableAgents, prepareAgents } from '../domain/query/query-agents.js';
import { realisePlan } from '../domain/query/realise-plan.js';
import type { QueryRepository } from '../infra/query.repository.js';
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
  checkActions: (plan: unknown) => void;
  log: QueryLogger;
}

export interface PlannedQuery {
  queryId: string;
  conversationId: string;
  sessionId: string;
  plan: PlanGraph;
  masterPlan: Record<string, unknown>;
  memory: LongTermMemory;
}

export const NO_MODEL = 'answering a query needs a chat model and none is configured (LLM_PROVIDER is none): no plan was made and no answer was made up';

export class QueryPipeline {
  /** Memory extractions still running, by query id: the composer waits for its own before storing. */
  private readonly extracting = new Map<string, Promise<void>>();

  constructor(private readonly deps: QueryPipelineDeps) {}

  async plan(caller: Caller, input: { query: string; conversationId: string; sessionId: string; streaming: boolean }): Promise<PlannedQuery> {
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
    this.deps.checkActions(planned.plan);

    if (!sessionId) sessionId = await repo.createSession(caller.userId);
    const conversationId = input.conversationId || (await this.deps.conversations.append(caller, '', []));
    const queryId = await repo.createRecord({ user_id: caller.userId, session_id: sessionId, conversation_id: conversationId, query, streaming: input.streaming, master_plan: planned.masterPlan, memory });
    this.startExtraction(caller.userId, queryId, query, model);
    this.deps.log.info({ queryId, agents: (planned.masterPlan.execution_plan as unknown[]).length }, 'query planned');
    return { queryId, conversationId, sessionId, plan: planned.plan, masterPlan: planned.masterPlan, memory };
  }

  /** The answer to a planned query whose run ended (the same answer again when asked twice). */
  async compose(caller: Caller, queryId: string, runId: string, run: { nodes?: RunNode[] }): Promise<Record<string, unknown>> {
    const record = await this.deps.repo.record(caller.userId, queryId);
    if (!record) throw AppError.notFound('query', queryId);
    if (record.result) return record.result;
    if (!runId) throw AppError.invalid('run_id', 'is required');
    const model = this.deps.model;
    if (!model) throw new AppError('FAILED_PRECONDITION', NO_MODEL, { violations: [{ field: 'model', reason: NO_MODEL, code: 'no_model' }] });
    await this.extracting.get(queryId);
    const agents = (Array.isArray(record.master_plan.execution_plan) ? record.master_plan.execution_plan : []) as PlannedAgent[];
    const nodes = Array.isArray(run.nodes) ? run.nodes : [];
    const sources = numberSources(agents, nodes);
    const missing = notDone(agents, nodes);
    const { output } = await runStructuredTask<{ answer: string }>({
      model,
      instructions: COMPOSER_INSTRUCTIONS,
      context: composerContext({ query: record.query, memory: record.memory, sources, agents, nodes, notDone: missing }),
      outputSchema: COMPOSER_SCHEMA,
      schemaName: 'composer_output',
    }).catch((err: unknown) => {
      throw new AppError('FAILED_PRECONDITION', `the composer could not write the answer: ${err instanceof Error ? err.message : String(err)}`, { retryable: false });
    });
    const checked = checkAnswer(output.answer, sources, missing);
    const result = {
      query_id: queryId,
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
    if (await this.deps.repo.answer(queryId, runId, result)) {
      await this.deps.conversations.append(caller, record.conversation_id, [
        { role: 'user', content: record.query },
        { role: 'agent', content: checked.answer, run_id: runId },
      ]);
      await this.summarise(record.conversation_id);
      return result;
    }
    return (await this.deps.repo.record(caller.userId, queryId))?.result ?? result;
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
