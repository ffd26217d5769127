import { AppError } from '@af/service-kit';
import { AgentRuns } from './agent-runs.js';
import type { PreparedMessage } from './profile-messages.js';
import type { FinishedRun } from '../domain/journal/journal-entry.js';

const profile = {
  id: 'p1',
  user_id: 'alice',
  handle: 'np',
  system_prompt_additions: 'Be brief.',
  max_research_rounds: 2,
  skills: [{ skill_type: 'built_in', skill_reference: 'research', is_enabled: true }],
  knowledge_config: {},
  journal_config: {},
  team_config: { team_post_access: true },
} as unknown as PreparedMessage['profile'];
const prepared = (strategy: PreparedMessage['strategy']): PreparedMessage => ({ profile, query: 'who funds Acme?', strategy, reason: 'r', needsModel: false, notes: [], inputs: {}, extracted: [] });
const log = { warn: () => undefined };

const share = (teamId: string, teamPostAccess: boolean) => ({ teamId, accessLevel: 'use' as const, teamFileAccess: false, teamPostAccess, journalVisibility: 'own_and_scheduled' as const, isActive: true });

function runs(opts: { strategy: PreparedMessage['strategy']; model?: unknown; tools?: string[]; runRow?: Record<string, unknown>; teamId?: string; shares?: ReturnType<typeof share>[]; served?: (a: string) => boolean }) {
  const repo = { run: async () => opts.runRow, finishRun: jest.fn(async (_id: string, e: Record<string, unknown>, _ended: boolean) => ({ ...e, id: 'j1', created_at: new Date() })) };
  const agentRuns = new AgentRuns(
    { prepare: async () => ({ ...prepared(opts.strategy), ...(opts.teamId ? { teamId: opts.teamId } : {}) }) },
    { authorize: async () => ({ view: { profile, access: 'owner' as const, permissions: [], sharedWith: [] } }) },
    { researchTools: async () => ({ tools: opts.tools ?? [] }) },
    { history: async () => [{ role: 'user', content: 'earlier question' }] },
    repo as never,
    opts.model as never,
    log,
    undefined,
    { served: opts.served ?? ((a) => a !== 'search_knowledge_graph'), shares: async () => opts.shares ?? [] },
  );
  return { agentRuns, repo };
}

const caller = { userId: 'alice', teamIds: [] };

describe('AgentRuns.prepare', () => {
  it.each(['research', 'direct'] as const)('%s without a model: needsModel and no plan', async (strategy) => {
    const out = await runs({ strategy }).agentRuns.prepare(caller, '@np q', '', {}, '');
    expect(out).toMatchObject({ strategy, needsModel: true });
    expect(out.plan).toBeUndefined();
  });

  it('research with a model: one llm node over the bound endpoints and its built-in actions, with the conversation history', async () => {
    const out = await runs({ strategy: 'research', model: {}, tools: ['fec__search'] }).agentRuns.prepare(caller, '@np q', '', {}, 'c1');
    expect(out.plan!.nodes[0]).toMatchObject({ action: 'research_with_tools', params: { tools: ['fec__search', 'query_journal', 'write_journal_entry', 'search_documents'], max_rounds: 2 } });
    expect(String(out.plan!.nodes[0]!.params.instructions)).toContain('user: earlier question');
  });

  it('research is offered the built-in actions of its skills; team tools only through a share that grants them', async () => {
    const member = { userId: 'bob', teamIds: ['t1', 't2'] };
    const granted = await runs({ strategy: 'research', model: {}, tools: ['fec__search'], teamId: 't1', shares: [share('t1', true), share('t2', true)] }).agentRuns.prepare(member, '@np q', '', {}, '');
    expect(granted.plan!.nodes[0]!.params).toMatchObject({
      tools: ['fec__search', 'query_journal', 'write_journal_entry', 'search_documents', 'search_team_posts', 'summarize_team_thread', 'write_team_post'],
      team_ids: ['t1'],
    });
    expect(granted.notes).toContain("research tool 'search_knowledge_graph' not offered: no service of this deployment serves it");
    const notGranted = await runs({ strategy: 'research', model: {}, tools: ['fec__search'], teamId: 't1', shares: [share('t1', false)] }).agentRuns.prepare(member, '@np q', '', {}, '');
    expect(notGranted.plan!.nodes[0]!.params.tools).not.toContain('search_team_posts');
    expect(notGranted.plan!.nodes[0]!.params.team_ids).toBeUndefined();
  });

  it('research with nothing bound is refused saying to bind a connector', async () => {
    await expect(runs({ strategy: 'research', model: {}, served: (a) => a.includes('journal') }).agentRuns.prepare(caller, '@np q', '', {}, '')).rejects.toThrow(/bind a connector/);
  });

  it('a playbook strategy is left as prepared', async () => {
    expect((await runs({ strategy: 'pipeline' }).agentRuns.prepare(caller, '@np q', '', {}, '')).strategy).toBe('pipeline');
  });
});

describe('AgentRuns.record and finish', () => {
  it('refuses an unknown strategy naming the field', async () => {
    const err = await runs({ strategy: 'direct' }).agentRuns.record(caller, { runId: 'r1', agentProfileId: 'p1', query: 'q', strategy: 'telepathy', playbookId: '', teamId: '', runContext: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).violations[0]).toMatchObject({ field: 'strategy' });
  });

  it('only the run\'s invoker finishes it; others get NOT_FOUND', async () => {
    const row = { run_id: 'r1', agent_profile_id: 'p1', owner_user_id: 'alice', invoked_by: 'bob', team_id: 't1', query: 'q', strategy: 'direct', playbook_id: null, run_context: 'interactive' };
    const err = await runs({ strategy: 'direct', runRow: row }).agentRuns.finish(caller, 'r1', { status: 'completed', nodes: [] }).catch((e: unknown) => e);
    expect((err as AppError).code).toBe('NOT_FOUND');
  });

  it('writes the engine summary without a model and answers the llm step\'s text', async () => {
    const row = { run_id: 'r1', agent_profile_id: 'p1', owner_user_id: 'alice', invoked_by: 'alice', team_id: null, query: 'q', strategy: 'direct', playbook_id: null, run_context: 'interactive' };
    const { agentRuns, repo } = runs({ strategy: 'direct', runRow: row });
    const out = await agentRuns.finish(caller, 'r1', { status: 'completed', task_status: 'complete', nodes: [{ node_id: 'answer', kind: 'llm', status: 'completed', output: { answer: 'Yes.' } }] });
    expect(out.answer).toBe('Yes.');
    expect(repo.finishRun.mock.calls[0]![1]).toMatchObject({ summary_source: 'engine', task_status: 'complete', invoked_by: 'alice', strategy: 'direct' });
    expect(repo.finishRun.mock.calls[0]![2]).toBe(true);
  });

  it('a run waiting for a person gets an awaiting_approval entry that stays open', async () => {
    const row = { run_id: 'r1', agent_profile_id: 'p1', owner_user_id: 'alice', invoked_by: 'alice', team_id: null, query: 'q', strategy: 'playbook', playbook_id: 'pb', run_context: 'interactive' };
    const { agentRuns, repo } = runs({ strategy: 'playbook', runRow: row });
    await agentRuns.finish(caller, 'r1', { status: 'waiting', task_status: 'awaiting_approval', nodes: [{ node_id: 'confirm', kind: 'approval', status: 'waiting' }] });
    expect(repo.finishRun.mock.calls[0]![1]).toMatchObject({ task_status: 'awaiting_approval' });
    expect(repo.finishRun.mock.calls[0]![2]).toBe(false);
  });
});

describe('AgentRuns.journalEnded (any agent run, when it ends)', () => {
  const ended = { status: 'completed', task_status: 'complete', nodes: [{ node_id: 'answer', kind: 'llm', status: 'completed', output: { answer: 'Yes.' } }] };

  function serverSide(opts: { logged: boolean; model?: boolean }) {
    let log: Record<string, unknown> | undefined = opts.logged
      ? { run_id: 'r1', agent_profile_id: 'p1', owner_user_id: 'alice', invoked_by: 'bob', team_id: 't1', query: 'q', strategy: 'direct', playbook_id: null, run_context: 'interactive', status: 'running' }
      : undefined;
    let entry: Record<string, unknown> | undefined;
    const repo = {
      run: async () => log && { ...log },
      openRun: jest.fn(async (row: Record<string, unknown>) => {
        log = { ...row, status: 'running' };
      }),
      entryOfRun: async () => entry,
      staleOpenRuns: async () => (log?.status === 'running' ? ['r1'] : []),
      finishRun: jest.fn(async (_id: string, e: Record<string, unknown>, isEnded: boolean) => {
        await new Promise((r) => setTimeout(r, 10));
        entry = { ...e, id: 'j1', created_at: new Date() };
        if (isEnded) log = { ...log, status: 'finished' };
        return entry;
      }),
    };
    const source = { finished: jest.fn(async (): Promise<FinishedRun | undefined> => ended) };
    const model = { invoke: jest.fn(async () => ({ content: 'The model summary.' })) };
    const agentRuns = new AgentRuns(
      { prepare: async () => prepared('direct') },
      { authorize: async () => ({ view: { profile: { ...profile, handle: 'np' }, access: 'team' as const, permissions: [], sharedWith: [] } }) } as never,
      { researchTools: async () => ({ tools: [] }) },
      { history: async () => [] },
      repo as never,
      (opts.model ? model : undefined) as never,
      { warn: () => undefined },
      { runs: source, profiles: { get: async (id: string) => (id === 'p1' ? ({ id: 'p1', user_id: 'alice', handle: 'np' } as never) : undefined) } },
    );
    return { agentRuns, repo, source, model };
  }

  it('reads the ended run from the orchestrator as its invoker and writes the entry', async () => {
    const { agentRuns, repo, source } = serverSide({ logged: true });
    const entry = await agentRuns.journalEnded({ runId: 'r1', status: 'completed' });
    expect(source.finished).toHaveBeenCalledWith('bob', 'r1');
    expect(entry).toMatchObject({ id: 'j1', task_status: 'complete', invoked_by: 'bob', team_id: 't1' });
    expect(repo.finishRun).toHaveBeenCalledTimes(1);
  });

  it('the gateway handing the run over and the run-end consumer at once write one entry, summarised once', async () => {
    const { agentRuns, repo, model } = serverSide({ logged: true, model: true });
    const [a, b] = await Promise.all([agentRuns.finish({ userId: 'bob', teamIds: ['t1'] }, 'r1', ended), agentRuns.journalEnded({ runId: 'r1', status: 'completed' })]);
    expect(repo.finishRun).toHaveBeenCalledTimes(1);
    expect(model.invoke).toHaveBeenCalledTimes(1);
    expect(a.entry).toEqual(b);
    expect(a.answer).toBe('Yes.');
    // Later frames (a redelivery) leave it as it is.
    await agentRuns.journalEnded({ runId: 'r1', status: 'completed' });
    expect(repo.finishRun).toHaveBeenCalledTimes(1);
  });

  it('a run nobody logged (a schedule started it) is logged from its complete frame, then journaled', async () => {
    const { agentRuns, repo } = serverSide({ logged: false });
    const entry = await agentRuns.journalEnded({ runId: 'r1', status: 'completed', agentProfileId: 'p1', invokedBy: 'alice', runContext: 'scheduled', runName: 'Nightly' });
    expect(repo.openRun).toHaveBeenCalledWith(expect.objectContaining({ run_id: 'r1', agent_profile_id: 'p1', owner_user_id: 'alice', invoked_by: 'alice', run_context: 'scheduled', query: 'Nightly' }));
    expect(entry).toMatchObject({ run_context: 'scheduled' });
  });

  it('a run that is not an agent\'s, or whose profile is gone, is left alone', async () => {
    const { agentRuns, repo, source } = serverSide({ logged: false });
    expect(await agentRuns.journalEnded({ runId: 'r1', status: 'completed' })).toBeUndefined();
    expect(await agentRuns.journalEnded({ runId: 'r1', status: 'completed', agentProfileId: 'gone', invokedBy: 'alice' })).toBeUndefined();
    expect(repo.openRun).not.toHaveBeenCalled();
    expect(source.finished).not.toHaveBeenCalled();
  });

  it('the sweep journals logged runs that ended without their frame being seen, and leaves running ones', async () => {
    const { agentRuns, repo, source } = serverSide({ logged: true });
    source.finished.mockResolvedValueOnce({ status: 'running', nodes: [] });
    expect(await agentRuns.sweep(1_000)).toBe(0);
    expect(repo.finishRun).not.toHaveBeenCalled();
    expect(await agentRuns.sweep(1_000)).toBe(1);
    expect(repo.finishRun).toHaveBeenCalledTimes(1);
    expect(await agentRuns.sweep(1_000)).toBe(0);
  });
});
