import { draftJournalEntry, entitiesMentioned, finalAnswer, journalTaskStatus, stepResult } from './journal-entry.js';

const run = {
  status: 'completed',
  task_status: 'partial',
  error_summary: 'pull_irs failed: 503',
  nodes: [
    { node_id: 'pull_fec', kind: 'tool', action: 'call_connector', status: 'completed', output: { results: [1, 2, 3] } },
    { node_id: 'pull_irs', kind: 'tool', action: 'call_connector', status: 'failed', error: '503' },
    { node_id: 'resolve', kind: 'tool', action: 'resolve_entities', status: 'completed', output: { entities: [{ name: 'Omidyar Foundation' }, { canonical_name: 'Pierre Omidyar' }] } },
  ],
  inputs: { organization_name: 'Omidyar Foundation', year: 2024 },
  connectors_called: [{ connector: 'fec', endpoint: 'search', results_count: 3 }],
  entities_discovered: 2,
  outputs_produced: [{ type: 'save_to_workspace', document_id: 'd1' }],
};

describe('journal entries', () => {
  it('takes the run task status, or derives it from the status', () => {
    expect(journalTaskStatus({ status: 'completed', task_status: 'partial' })).toBe('partial');
    expect(journalTaskStatus({ status: 'failed' })).toBe('error');
    expect(journalTaskStatus({ status: 'waiting' })).toBe('awaiting_approval');
    expect(journalTaskStatus({ status: 'running' })).toBe('awaiting_approval');
    expect(journalTaskStatus({ status: 'failed', task_status: 'partial' })).toBe('partial');
    expect(journalTaskStatus({ status: 'completed' })).toBe('complete');
  });

  it('says what each step did', () => {
    expect(stepResult(run.nodes[0]!)).toBe('3 results');
    expect(stepResult(run.nodes[1]!)).toBe('failed: 503');
    expect(stepResult({ node_id: 'x', status: 'skipped' })).toBe('skipped');
  });

  it('collects entity names from inputs and outputs, once each', () => {
    expect(entitiesMentioned(run, ['Omidyar Foundation'])).toEqual(['Omidyar Foundation', 'Pierre Omidyar']);
  });

  it('drafts an entry with an engine summary naming steps, connectors, outputs and problems', () => {
    const d = draftJournalEntry(run, { handle: 'np', strategy: 'pipeline', playbookId: 'investigate', query: 'investigate Omidyar Foundation' });
    expect(d).toMatchObject({ taskStatus: 'partial', stepsCompleted: 2, entitiesDiscovered: 2, errorSummary: 'pull_irs failed: 503' });
    expect(d.detailEntries).toHaveLength(3);
    expect(d.summary).toContain("@np ran playbook 'investigate' (pipeline)");
    expect(d.summary).toContain('2 of 3 steps completed (partial)');
    expect(d.summary).toContain('fec.search (3 results)');
    expect(d.summary).toContain('Produced save_to_workspace');
    expect(d.summary).toContain('Problems: pull_irs failed: 503');
  });

  it('answers with the last llm text, the summary, or the failure', () => {
    expect(finalAnswer({ status: 'completed', nodes: [{ node_id: 'a', kind: 'llm', status: 'completed', output: { answer: 'Yes.' } }] }, 's')).toBe('Yes.');
    expect(finalAnswer(run, 'summary')).toBe('summary');
    expect(finalAnswer({ status: 'failed', error: 'no model', nodes: [] }, 's')).toBe('The run failed: no model');
  });
});
