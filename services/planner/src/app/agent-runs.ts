/**
 * Running an agent, as the planner's part of it: what a message runs
 * (`prepare`: the strategy, and the plan — the chosen playbook compiled, or
 * for research / direct one llm node over the profile's connectors), the
 * execution log row when the run started (`record`: an open row keeps the
 * profile from being deleted) and the journal entry when it ended (`finish`:
 * engine summary, or the model's when one is configured; the final answer).
 * The orchestrator runs the plan; the gateway carries the run between them.
 */
import { messageText, type BaseChatModel } from '@af/llm';
import { AppError } from '@af/service-kit';
import { draftJournalEntry, finalAnswer, type FinishedRun } from '../domain/journal/journal-entry.js';
import { agentPlan } from '../domain/profiles/agent-plan.js';
import type { Caller } from '../domain/profiles/sharing.js';
import type { JournalRepository, JournalRow } from '../infra/journal.repository.js';
import type { ProfileBindings } from '../infra/profile-bindings.js';
import type { Conversations } from './conversations.js';
import type { PreparedMessage, ProfileMessages } from './profile-messages.js';
import type { ProfilesService } from './profiles.service.js';

const STRATEGIES = ['playbook', 'pipeline', 'research', 'direct'] as const;
const RUN_CONTEXTS = ['interactive', 'background', 'scheduled', 'monitor'] as const;
const SUMMARY_TIMEOUT_MS = 30_000;
/** Run statuses after which nothing changes: the entry is final. A waiting run's entry is replaced when it ends. */
const ENDED = ['completed', 'failed', 'cancelled'];

export interface Logger {
  warn(obj: unknown, msg?: string): void;
}

export class AgentRuns {
  constructor(
    private readonly messages: Pick<ProfileMessages, 'prepare'>,
    private readonly profiles: Pick<ProfilesService, 'authorize'>,
    private readonly bindings: Pick<ProfileBindings, 'researchTools'>,
    private readonly conversations: Pick<Conversations, 'history'>,
    private readonly repo: JournalRepository,
    private readonly model: BaseChatModel | undefined,
    private readonly log: Logger,
  ) {}

  /** PrepareMessage with the plan to run; research / direct need a model (needsModel, no plan, without one). */
  async prepare(caller: Caller, message: string, agentProfileId: string, inputs: Record<string, unknown>, conversationId: string): Promise<PreparedMessage> {
    const prepared = await this.messages.prepare(caller, message, agentProfileId, inputs);
    if (prepared.strategy !== 'research' && prepared.strategy !== 'direct') return prepared;
    if (!this.model) return { ...prepared, needsModel: true };
    let tools: string[] = [];
    if (prepared.strategy === 'research') {
      const found = await this.bindings.researchTools(caller, prepared.profile.id);
      if ('unavailable' in found) throw new AppError('UNAVAILABLE', `agent '@${prepared.profile.handle}' cannot research: its connectors could not be listed: ${found.unavailable}`);
      tools = found.tools;
    }
    const history = conversationId ? await this.conversations.history(caller, conversationId) : [];
    const built = agentPlan({
      strategy: prepared.strategy,
      handle: prepared.profile.handle,
      query: prepared.query,
      systemPrompt: prepared.profile.system_prompt_additions ?? null,
      maxRounds: prepared.profile.max_research_rounds,
      tools,
      history,
      destinations: prepared.profile.output_config?.destinations ?? [],
    });
    if (!built.ok) throw new AppError('FAILED_PRECONDITION', `agent '@${prepared.profile.handle}' cannot answer with ${prepared.strategy}: ${built.reason}`);
    return { ...prepared, plan: built.plan };
  }

  async record(caller: Caller, r: { runId: string; agentProfileId: string; query: string; strategy: string; playbookId: string; teamId: string; runContext: string }): Promise<void> {
    if (!r.runId) throw AppError.invalid('run_id', 'is required');
    if (!(STRATEGIES as readonly string[]).includes(r.strategy)) throw AppError.invalid('strategy', `must be one of ${STRATEGIES.join(', ')}`);
    const runContext = r.runContext || 'interactive';
    if (!(RUN_CONTEXTS as readonly string[]).includes(runContext)) throw AppError.invalid('run_context', `must be one of ${RUN_CONTEXTS.join(', ')}`);
    const { view } = await this.profiles.authorize(caller, r.agentProfileId, 'run');
    await this.repo.openRun({
      run_id: r.runId,
      agent_profile_id: view.profile.id,
      owner_user_id: view.profile.user_id,
      invoked_by: caller.userId,
      team_id: r.teamId || view.teamId || null,
      query: r.query.slice(0, 10_000),
      strategy: r.strategy,
      playbook_id: r.playbookId || null,
      run_context: runContext,
    });
  }

  /**
   * Writes the run's journal entry and answers the final answer. Only the
   * run's invoker may. A run waiting for a person gets an `awaiting_approval`
   * entry, replaced when it ends; an ended run's entry is written once.
   */
  async finish(caller: Caller, runId: string, run: FinishedRun): Promise<{ entry: JournalRow; answer: string }> {
    const log = await this.repo.run(runId);
    if (!log || log.invoked_by !== caller.userId) throw AppError.notFound('agent run', runId);
    const { view } = await this.profiles.authorize(caller, log.agent_profile_id, 'run');
    if (!run || !Array.isArray(run.nodes) || typeof run.status !== 'string') throw AppError.invalid('run', 'must be {status, nodes: [...], …}');
    const draft = draftJournalEntry(run, { handle: view.profile.handle, strategy: log.strategy, ...(log.playbook_id ? { playbookId: log.playbook_id } : {}), query: log.query });
    const llmSummary = await this.summarise(view.profile.handle, log.query, draft);
    const ended = ENDED.includes(run.status);
    const entry = await this.repo.finishRun(runId, {
      agent_profile_id: log.agent_profile_id,
      user_id: log.owner_user_id,
      run_id: runId,
      summary: llmSummary ?? draft.summary,
      summary_source: llmSummary ? 'llm' : 'engine',
      detail_entries: draft.detailEntries,
      run_context: log.run_context,
      invoked_by: log.invoked_by,
      team_id: log.team_id,
      strategy: log.strategy,
      playbook_id: log.playbook_id,
      entities_mentioned: draft.entitiesMentioned,
      steps_completed: draft.stepsCompleted,
      entities_discovered: draft.entitiesDiscovered,
      outputs_produced: draft.outputsProduced,
      connectors_called: draft.connectorsCalled,
      task_status: draft.taskStatus,
      error_summary: draft.errorSummary,
    }, ended);
    return { entry, answer: finalAnswer(run, draft.summary) };
  }

  /** The model's summary of the engine's facts; undefined without a model or when it fails (the engine's stands). */
  private async summarise(handle: string, query: string, draft: ReturnType<typeof draftJournalEntry>): Promise<string | undefined> {
    if (!this.model) return undefined;
    try {
      const reply = await this.model.invoke(
        [
          ['system', 'You write one short journal entry (at most three sentences) about what an agent run did. Use only the facts given; do not add any.'],
          ['human', JSON.stringify({ agent: `@${handle}`, query, facts: draft.summary, steps: draft.detailEntries, task_status: draft.taskStatus })],
        ],
        { signal: AbortSignal.timeout(SUMMARY_TIMEOUT_MS) },
      );
      const text = messageText(reply).trim();
      return text || undefined;
    } catch (err) {
      this.log.warn({ err, handle }, 'journal summary by the model failed; the engine summary is kept');
      return undefined;
    }
  }
}
