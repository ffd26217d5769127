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
import { researchActions } from '../domain/profiles/research-tools.js';
import { teamToolGrants, type Caller, type TeamShare } from '../domain/profiles/sharing.js';
import type { ExecutionLogRow, JournalRepository, JournalRow } from '../infra/journal.repository.js';
import type { ProfileRepository } from '../infra/profile.repository.js';
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

/** An ended agent run as the orchestrator reports it (infra/orchestrator-runs.ts); undefined when it has no such run. */
export interface EndedRunSource {
  finished(invokedBy: string, runId: string): Promise<FinishedRun | undefined>;
}

/** What an agent run's `complete` frame says about it (the orchestrator adds the agent to it). */
export interface RunEnd {
  runId: string;
  status: string;
  agentProfileId?: string;
  invokedBy?: string;
  teamId?: string;
  runContext?: string;
  runName?: string;
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
    /** For journaling runs server-side when they end (journalEnded): the orchestrator's view and the profiles. */
    private readonly ended?: { runs: EndedRunSource; profiles: Pick<ProfileRepository, 'get'> },
    /** What research may call beyond connectors: the actions the deployment serves, and the profile's team shares. */
    private readonly research: { served: (action: string) => boolean; shares: (profileId: string) => Promise<TeamShare[]> } = { served: () => false, shares: async () => [] },
  ) {}

  /** One journal write per run at a time in this process: the gateway's FinishAgentRun and the run-end consumer meet here. */
  private readonly writing = new Map<string, Promise<{ entry: JournalRow; answer: string }>>();

  /** PrepareMessage with the plan to run; research / direct need a model (needsModel, no plan, without one). */
  async prepare(caller: Caller, message: string, agentProfileId: string, inputs: Record<string, unknown>, conversationId: string): Promise<PreparedMessage> {
    const prepared = await this.messages.prepare(caller, message, agentProfileId, inputs);
    if (prepared.strategy !== 'research' && prepared.strategy !== 'direct') return prepared;
    if (!this.model) return { ...prepared, needsModel: true };
    let tools: string[] = [];
    let offered: { actions: string[]; teamIds: string[]; withheld: string[] } = { actions: [], teamIds: [], withheld: [] };
    if (prepared.strategy === 'research') {
      const found = await this.bindings.researchTools(caller, prepared.profile.id);
      if ('unavailable' in found) throw new AppError('UNAVAILABLE', `agent '@${prepared.profile.handle}' cannot research: its connectors could not be listed: ${found.unavailable}`);
      tools = found.tools;
      offered = await this.researchActionsFor(caller, prepared);
    }
    const history = conversationId ? await this.conversations.history(caller, conversationId) : [];
    const built = agentPlan({
      strategy: prepared.strategy,
      handle: prepared.profile.handle,
      query: prepared.query,
      systemPrompt: prepared.profile.system_prompt_additions ?? null,
      maxRounds: prepared.profile.max_research_rounds,
      tools,
      actions: offered.actions,
      teamIds: offered.teamIds,
      history,
      destinations: prepared.profile.output_config?.destinations ?? [],
    });
    if (!built.ok) throw new AppError('FAILED_PRECONDITION', `agent '@${prepared.profile.handle}' cannot answer with ${prepared.strategy}: ${built.reason}`);
    return { ...prepared, plan: built.plan, notes: [...prepared.notes, ...offered.withheld] };
  }

  /**
   * The built-in actions research is offered: per the profile's skills and
   * configs, team tools only as teamToolGrants allows — for a member the
   * share's team, for the owner the teams it is shared with (actively) that
   * they belong to and whose share grants it.
   */
  private async researchActionsFor(caller: Caller, prepared: PreparedMessage): Promise<{ actions: string[]; teamIds: string[]; withheld: string[] }> {
    const p = prepared.profile;
    const shares = (await this.research.shares(p.id)).filter((s) => s.isActive && caller.teamIds.includes(s.teamId));
    const reach = prepared.teamId ? shares.filter((s) => s.teamId === prepared.teamId) : shares;
    const grants = reach.map((s) => teamToolGrants(p.team_config, s));
    const teamGrants = { files: grants.some((g) => g.files), posts: grants.some((g) => g.posts) };
    const teamIds = reach.filter((_s, i) => grants[i]!.files || grants[i]!.posts).map((s) => s.teamId);
    const out = researchActions({
      builtInSkills: p.skills.filter((s) => s.skill_type === 'built_in' && s.is_enabled).map((s) => s.skill_reference),
      knowledgeConfig: p.knowledge_config,
      journalConfig: p.journal_config,
      teamGrants,
      teamIds,
      served: this.research.served,
    });
    return { actions: out.actions, teamIds, withheld: out.withheld.map((w) => `research tool '${w.action}' not offered: ${w.reason}`) };
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
    return this.write(log, view.profile.handle, run);
  }

  /**
   * The journal entry of an agent run that ended, whoever started it and
   * whether or not anyone still follows it (the planner's run-end consumer
   * calls this for every agent run's `complete` frame). A run not logged yet
   * (started other than through RecordAgentRun, e.g. by a schedule) gets its
   * log row here. Once per run: an entry already final is left as it is.
   * Answers undefined when the run is not an agent's or its profile is gone.
   */
  async journalEnded(end: RunEnd): Promise<JournalRow | undefined> {
    if (!this.ended) return undefined;
    let log = await this.repo.run(end.runId);
    if (!log) {
      if (!end.agentProfileId || !end.invokedBy) return undefined;
      const profile = await this.ended.profiles.get(end.agentProfileId);
      if (!profile) return undefined;
      const context = (RUN_CONTEXTS as readonly string[]).includes(end.runContext ?? '') ? end.runContext! : 'interactive';
      await this.repo.openRun({
        run_id: end.runId,
        agent_profile_id: profile.id,
        owner_user_id: profile.user_id,
        invoked_by: end.invokedBy,
        team_id: end.teamId || null,
        query: (end.runName ?? '').slice(0, 10_000),
        strategy: 'pipeline',
        playbook_id: null,
        run_context: context,
      });
      log = await this.repo.run(end.runId);
      if (!log) return undefined;
    }
    if (log.status === 'finished') return (await this.repo.entryOfRun(end.runId)) ?? undefined;
    const profile = await this.ended.profiles.get(log.agent_profile_id);
    if (!profile) return undefined;
    const run = await this.ended.runs.finished(log.invoked_by, end.runId);
    // Not ended yet (a sweep asked too early): its entry is written when it ends.
    if (!run || !ENDED.includes(run.status)) return undefined;
    return (await this.write(log, profile.handle, run)).entry;
  }

  /**
   * Journals the logged runs still open after `olderThanMs` that have ended
   * meanwhile: the safety net for a `complete` frame nobody received (the
   * in-process bus of the embedded mode loses what it held when the process
   * stops). How many
   * entries it wrote.
   */
  async sweep(olderThanMs: number, limit = 50): Promise<number> {
    if (!this.ended) return 0;
    let written = 0;
    for (const runId of await this.repo.staleOpenRuns(olderThanMs, limit)) {
      try {
        if (await this.journalEnded({ runId, status: '' })) written++;
      } catch (err) {
        this.log.warn({ err, runId }, 'agent run sweep: journal entry not written');
      }
    }
    return written;
  }

  /** Drafts, summarises and stores the entry; one at a time per run, and an ended run's final entry is not rewritten. */
  private write(log: ExecutionLogRow, handle: string, run: FinishedRun): Promise<{ entry: JournalRow; answer: string }> {
    const runId = log.run_id;
    const pending = this.writing.get(runId);
    const next = (pending ?? Promise.resolve(undefined)).catch(() => undefined).then(() => this.writeNow(runId, handle, run));
    this.writing.set(runId, next);
    const cleanup = () => {
      if (this.writing.get(runId) === next) this.writing.delete(runId);
    };
    next.then(cleanup, cleanup);
    return next;
  }

  private async writeNow(runId: string, handle: string, run: FinishedRun): Promise<{ entry: JournalRow; answer: string }> {
    const log = await this.repo.run(runId);
    if (!log) throw AppError.notFound('agent run', runId);
    const draft = draftJournalEntry(run, { handle, strategy: log.strategy, ...(log.playbook_id ? { playbookId: log.playbook_id } : {}), query: log.query });
    const ended = ENDED.includes(run.status);
    // Written already (by the consumer or an earlier call): the final entry stands, no second summary.
    if (log.status === 'finished') {
      const existing = await this.repo.entryOfRun(runId);
      if (existing) return { entry: existing, answer: finalAnswer(run, draft.summary) };
    }
    const llmSummary = await this.summarise(handle, log.query, draft);
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
