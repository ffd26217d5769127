import { compileMasterPlan, kahnLevels } from '@af/plan';
import { answerChunks, checkAnswer, explainNotDone, StreamedAnswer, extractiveSummary, notDone, numberSources, type PlannedAgent, type RunNode } from './compose.js';
import { EMPTY_MEMORY, mergeMemory, parseExtraction } from './memory.js';
import { availableAgents, prepareAgents, type ConnectorTool } from './query-agents.js';
import { realisePlan } from './realise-plan.js';

const TOOLS: ConnectorTool[] = [
  { name: 'mail__list_messages', method: 'GET', description: 'list' },
  { name: 'mail__send_message', method: 'POST', description: 'send' },
];
const ALL = availableAgents(() => true, TOOLS);

describe('query agents', () => {
  it('offers web_agent only when search_web is served and mail_agent only with connector tools', () => {
    expect(availableAgents((a) => a === 'search_documents', []).map((a) => a.name)).toEqual(['rag_agent', 'summary_agent']);
    expect(ALL.map((a) => a.name)).toEqual(['rag_agent', 'web_agent', 'mail_agent', 'summary_agent']);
  });

  it('gates the mail agent on every tool that writes, whatever the model said', () => {
    const { agents, issues } = prepareAgents([{ agent_id: 'm', agent_name: 'mail_agent', tools: ['mail__list_messages', 'mail__send_message'], hitl_tools: [] }], ALL, TOOLS);
    expect(issues).toEqual([]);
    expect(agents[0]).toMatchObject({ tools: ['mail__list_messages', 'mail__send_message'], hitl_tools: ['mail__send_message'] });
    // No tools named: all of them.
    expect(prepareAgents([{ agent_id: 'm', agent_name: 'mail_agent' }], ALL, TOOLS).agents[0]!.tools).toEqual(['mail__list_messages', 'mail__send_message']);
  });

  it('names unknown agents, unknown tools and approvals on agents without tools by field', () => {
    const { issues } = prepareAgents(
      [
        { agent_id: 'c', agent_name: 'code_agent' },
        { agent_id: 'm', agent_name: 'mail_agent', tools: ['mail__delete_all'] },
        { agent_id: 'r', agent_name: 'rag_agent', requires_approval: true },
      ],
      ALL,
      TOOLS,
    );
    expect(issues.map((i) => [i.field, i.code])).toEqual([
      ['execution_plan[0].agent_name', 'unknown_agent'],
      ['execution_plan[1].tools[0]', 'unknown_tool'],
      ['execution_plan[2].requires_approval', 'invalid_field'],
    ]);
  });
});

describe('realisePlan', () => {
  const master = (agents: Record<string, unknown>[]) => {
    const prepared = prepareAgents(agents, ALL, TOOLS);
    const compiled = compileMasterPlan({ query: 'q', execution_plan: prepared.agents }, { composer: false });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    return compiled.plan;
  };

  it('turns each agent into the node that runs it, keeping stages and the approval gate', () => {
    const plan = master([
      { agent_id: 'rag_0', agent_name: 'rag_agent', task: 'find X' },
      { agent_id: 'web_0', agent_name: 'web_agent', task: 'look up X' },
      { agent_id: 'mail_0', agent_name: 'mail_agent', task: 'send X', tools: ['mail__send_message'], depends_on: ['rag_0'] },
      { agent_id: 'sum_0', agent_name: 'summary_agent', task: 'summarise', depends_on: ['rag_0', 'web_0'] },
    ]);
    const memory = { critical_facts: { user_name: 'Dana' }, preferences: {} };
    const r = realisePlan(plan, memory, 'q', true);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const byId = Object.fromEntries(r.plan.nodes.map((n) => [n.id, n]));
    expect(byId.rag_0).toMatchObject({ kind: 'tool', action: 'search_documents', inputs: { query: 'find X' }, params: { max_results: 8 } });
    expect(byId.rag_0!.capabilityId).toBeUndefined();
    expect(byId.web_0).toMatchObject({ kind: 'tool', action: 'search_web', inputs: { query: 'look up X' } });
    expect(byId.mail_0).toMatchObject({ kind: 'llm', action: 'research_with_tools', params: { tools: ['mail__send_message'] }, dependsOn: ['mail_0__approval'], inputs: { long_term_memory: memory } });
    expect(byId.mail_0__approval).toMatchObject({ kind: 'approval', params: { tool_names: ['mail__send_message'], on_reject: 'skip' }, dependsOn: ['rag_0'] });
    expect(byId.sum_0).toMatchObject({ kind: 'llm', action: 'llm_analyze', inputs: { dependency_outputs: { rag_0: '{rag_0}', web_0: '{web_0}' } } });
    expect(kahnLevels(r.plan)).toEqual([['rag_0', 'web_0'], ['mail_0__approval', 'sum_0'], ['mail_0']]);
    expect(r.plan.metadata).toMatchObject({ query_pipeline: true });
    expect(r.plan.metadata.non_streaming).toBeUndefined();
  });

  it('marks a plan for POST /query as non-streaming (gated agents are skipped there)', () => {
    const r = realisePlan(master([{ agent_id: 'rag_0', agent_name: 'rag_agent', task: 'find X' }]), EMPTY_MEMORY, 'q', false);
    expect(r.ok && r.plan.metadata.non_streaming).toBe(true);
  });
});

describe('composing', () => {
  const agents: PlannedAgent[] = [
    { agent_id: 'rag_0', agent_name: 'rag_agent', task: 'find' },
    { agent_id: 'web_0', agent_name: 'web_agent', task: 'web' },
    { agent_id: 'mail_0', agent_name: 'mail_agent', task: 'send it', tools: ['mail__send_message'], hitl_tools: ['mail__send_message'] },
    { agent_id: 'rag_1', agent_name: 'rag_agent', task: 'other' },
  ];
  const nodes: RunNode[] = [
    { node_id: 'rag_0', status: 'completed', output: { documents: [{ document_id: 'd1', chunk_id: 'c1', title: 'a.pdf', text: 'alpha', page: 2, section: 'S' }, { document_id: 'd2', chunk_id: 'c2', title: 'b.md', snippet: 'beta' }] } },
    { node_id: 'web_0', status: 'completed', output: { results: [{ title: 'Page', url: 'https://x.test', snippet: 'gamma' }] } },
    { node_id: 'mail_0', status: 'completed', output: { task_done: false, error: 'denied_by_user', partial_data: { reason: 'denied_by_user' } } },
    { node_id: 'rag_1', status: 'failed', error: 'boom' },
  ];

  it('numbers documents then web results in plan order, and lists what was not done', () => {
    const sources = numberSources(agents, nodes);
    expect(sources.map((s) => [s.n, s.type, s.source, s.chunk_id ?? s.url])).toEqual([
      [1, 'document', 'a.pdf', 'c1'],
      [2, 'document', 'b.md', 'c2'],
      [3, 'web', 'Page', 'https://x.test'],
    ]);
    expect(sources[0]).toMatchObject({ page: 2, section: 'S', excerpt: 'alpha' });
    expect(notDone(agents, nodes).map((n) => [n.agent_id, n.reason])).toEqual([
      ['mail_0', 'denied_by_user'],
      ['rag_1', 'boom'],
    ]);
  });

  it('keeps valid citations, removes the others, and explains each agent the answer does not mention', () => {
    const sources = numberSources(agents, nodes);
    const missing = notDone(agents, nodes);
    const checked = checkAnswer('Alpha [1][3], not [7]. rag_agent failed.', sources, missing);
    expect(checked.cited).toEqual([1, 3]);
    expect(checked.invalidCitations).toEqual([7]);
    expect(checked.answer).toContain('Alpha [1][3], not .');
    expect(checked.answer).toContain(explainNotDone(missing[0]!));
    expect(checked.answer).not.toContain('rag_agent did not do');
    expect(explainNotDone({ agent_id: 'm', agent_name: 'mail_agent', task: 't', reason: 'hitl_timeout', tools: [] })).toBe('mail_agent did not do "t": the approval it needs was not given in time.');
  });

  it('streams the checked answer: the pieces sent, then the rest, are exactly checkAnswer\'s answer, however the text is cut', () => {
    const sources = numberSources(agents, nodes);
    const missing = notDone(agents, nodes);
    const texts = [
      'Alpha [1][3], not [7]. rag_agent failed.',
      '  [99] Leading citation that names nothing, then [2]  ',
      'Numbers [12345] and [0] and [[1]] and [3 and [ 2] end [',
      'Plain answer without citations.\n\n',
      '[1]',
      '   ',
    ];
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const text of texts) {
      const cuts: string[][] = [[text], [...text]];
      for (let k = 0; k < 20; k++) {
        const parts: string[] = [];
        for (let i = 0; i < text.length; ) {
          const n = 1 + Math.floor(random() * 5);
          parts.push(text.slice(i, i + n));
          i += n;
        }
        cuts.push(parts);
      }
      for (const parts of cuts) {
        const stream = new StreamedAnswer(sources, missing);
        const sent = parts.map((p) => stream.push(p)).join('');
        const { checked, rest, replaces } = stream.end();
        expect(checked).toEqual(checkAnswer(text, sources, missing));
        expect(replaces).toBe(false);
        expect(sent + rest).toBe(checked.answer);
        expect(stream.text).toBe(text);
      }
    }
  });

  it('never sends a citation that names no source, even split across chunks', () => {
    const stream = new StreamedAnswer(numberSources(agents, nodes), []);
    const sent = ['See [', '9', '9', '] and [', '2', ']', '.'].map((p) => stream.push(p));
    expect(sent.join('')).toBe('See  and [2].');
    expect(sent).not.toContain('[');
    expect(stream.end()).toMatchObject({ rest: '', replaces: false, checked: { invalidCitations: [99], cited: [2] } });
  });

  it('splits a stored answer into words for streaming it again', () => {
    expect(answerChunks('Halvard Marine  services it [1].')).toEqual(['Halvard', ' Marine', '  services', ' it', ' [1].']);
    expect(answerChunks('').join('')).toBe('');
  });

  it('summarises turns extractively', () => {
    expect(extractiveSummary([{ question: 'q1', answer: 'First. Second.' }, { question: 'q2', answer: 'no stop' }])).toBe('Q: q1 → A: First.\nQ: q2 → A: no stop');
  });
});

describe('memory', () => {
  it('keeps only known, valid fields of what the extractor found', () => {
    expect(parseExtraction({ found: false, critical_facts: { user_name: 'x' } })).toBeUndefined();
    expect(parseExtraction({ found: true, critical_facts: { user_name: 'Dana', shoe_size: 9, job_title: '' }, preferences: { tone: 'brief' } })).toEqual({ critical_facts: { user_name: 'Dana' }, preferences: { tone: 'brief' } });
    expect(parseExtraction({ found: true, critical_facts: {} })).toBeUndefined();
    expect(parseExtraction('nonsense')).toBeUndefined();
  });

  it('merges: new values win, projects accumulate without duplicates', () => {
    const kept = { critical_facts: { user_name: 'Dana', recent_projects: ['RAG'] }, preferences: { tone: 'casual' } };
    expect(mergeMemory(kept, { critical_facts: { company_name: 'Acme', recent_projects: ['Beta', 'rag'] }, preferences: { tone: 'brief' } })).toEqual({
      critical_facts: { user_name: 'Dana', company_name: 'Acme', recent_projects: ['Beta', 'rag'] },
      preferences: { tone: 'brief' },
    });
  });
});
