/**
 * The composer's side of a query: the agents' outputs → one numbered source
 * list (documents first, in plan and rank order, then web results), the
 * context the model writes the answer from, and the checks on its answer:
 * every `[n]` must name a listed source (others are removed and reported),
 * and every agent that did not do its task (a denied or timed-out approval,
 * a non-streaming skip, a failure) is explained in the answer.
 */

export interface RunNode {
  node_id: string;
  status: string;
  error?: string;
  output?: unknown;
}

export interface PlannedAgent {
  agent_id: string;
  agent_name: string;
  task: string;
  tools?: string[];
  hitl_tools?: string[];
}

export interface Source {
  n: number;
  type: 'document' | 'web';
  agent_id: string;
  /** File name (document) or page title (web). */
  source: string;
  document_id?: string;
  chunk_id?: string;
  page?: number | null;
  section?: string | null;
  url?: string;
  excerpt: string;
}

export interface NotDone {
  agent_id: string;
  agent_name: string;
  task: string;
  reason: string;
  tools: string[];
}

const EXCERPT = 1_500;
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** Every source the agents found, numbered from 1. */
export function numberSources(agents: readonly PlannedAgent[], nodes: readonly RunNode[]): Source[] {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const out: Source[] = [];
  for (const a of agents) {
    const node = byId.get(a.agent_id);
    if (!node || node.status !== 'completed') continue;
    const output = obj(node.output);
    if (a.agent_name === 'rag_agent') {
      for (const d of arr(output.documents).map(obj)) {
        out.push({
          n: out.length + 1,
          type: 'document',
          agent_id: a.agent_id,
          source: str(d.title),
          document_id: str(d.document_id),
          chunk_id: str(d.chunk_id),
          page: typeof d.page === 'number' ? d.page : null,
          section: str(d.section) || null,
          excerpt: (str(d.text) || str(d.snippet)).slice(0, EXCERPT),
        });
      }
    } else if (a.agent_name === 'web_agent') {
      for (const r of arr(output.results ?? output.search_results).map(obj)) {
        out.push({ n: out.length + 1, type: 'web', agent_id: a.agent_id, source: str(r.title) || str(r.url), url: str(r.url), excerpt: (str(r.snippet) || str(r.content)).slice(0, EXCERPT) });
      }
    }
  }
  return out;
}

/** Agents that did not do their task, with why (the seed's synthetic outputs name the reason). */
export function notDone(agents: readonly PlannedAgent[], nodes: readonly RunNode[]): NotDone[] {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const out: NotDone[] = [];
  for (const a of agents) {
    const node = byId.get(a.agent_id);
    const output = obj(node?.output);
    let reason = '';
    if (!node) reason = 'did not run';
    else if (node.status === 'completed' && output.task_done === false) reason = str(output.error) || 'not done';
    else if (node.status !== 'completed') reason = node.error || node.status;
    if (reason) out.push({ agent_id: a.agent_id, agent_name: a.agent_name, task: a.task, reason, tools: a.hitl_tools?.length ? a.hitl_tools : (a.tools ?? []) });
  }
  return out;
}

const REASONS: Record<string, string> = {
  denied_by_user: 'you denied the approval it needs',
  hitl_timeout: 'the approval it needs was not given in time',
  hitl_skipped_non_streaming: 'it needs your approval, which only the streaming endpoint (/query/stream) can ask for',
};

/** One sentence per agent that did not do its task. */
export function explainNotDone(n: NotDone): string {
  const why = REASONS[n.reason] ?? `it failed: ${n.reason}`;
  const tools = n.tools.length ? ` (tools: ${n.tools.join(', ')})` : '';
  return `${n.agent_name} did not do "${n.task}"${tools}: ${why}.`;
}

export const COMPOSER_SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } as const;

export const COMPOSER_INSTRUCTIONS = [
  'You are the composer. Answer the query from the agents\' outputs and the numbered sources only.',
  'Cite each claim taken from a source with its number in square brackets, e.g. [1] or [2][3]; use only the numbers listed in sources.',
  'If an agent did not do its task (listed in not_done), explain clearly which action was blocked and why, and how the user can proceed.',
  'Follow the user\'s preferences (tone, detail_level, language) and address them by name when known.',
].join(' ');

/** What the composer model sees. */
export function composerContext(input: { query: string; memory: unknown; sources: readonly Source[]; agents: readonly PlannedAgent[]; nodes: readonly RunNode[]; notDone: readonly NotDone[] }): Record<string, unknown> {
  const byId = new Map(input.nodes.map((n) => [n.node_id, n]));
  const agentOutputs: Record<string, unknown> = {};
  for (const a of input.agents) {
    if (a.agent_name === 'rag_agent' || a.agent_name === 'web_agent') continue; // their findings are the sources
    const node = byId.get(a.agent_id);
    if (node?.status === 'completed') agentOutputs[a.agent_id] = { agent_name: a.agent_name, task: a.task, output: node.output };
  }
  return {
    query: input.query,
    long_term_memory: input.memory,
    sources: input.sources.map((s) => ({ n: s.n, source: s.source, page: s.page ?? null, section: s.section ?? null, url: s.url ?? null, text: s.excerpt })),
    agent_outputs: agentOutputs,
    not_done: input.notDone.map((n) => ({ agent_id: n.agent_id, agent_name: n.agent_name, task: n.task, reason: n.reason, explanation: explainNotDone(n) })),
  };
}

export interface CheckedAnswer {
  answer: string;
  /** The sources cited, by number, in the order first cited. */
  cited: number[];
  /** `[n]` that named no source; removed from the answer. */
  invalidCitations: number[];
}

/** Removes citations of sources that do not exist and appends what the composer left unexplained. */
export function checkAnswer(text: string, sources: readonly Source[], missing: readonly NotDone[]): CheckedAnswer {
  const cited: number[] = [];
  const invalid: number[] = [];
  let answer = text.replace(/\[(\d{1,4})\]/g, (_m, d: string) => {
    const n = Number(d);
    if (n >= 1 && n <= sources.length) {
      if (!cited.includes(n)) cited.push(n);
      return `[${n}]`;
    }
    if (!invalid.includes(n)) invalid.push(n);
    return '';
  });
  const unexplained = missing.filter((m) => !answer.includes(m.agent_name));
  if (unexplained.length) answer = `${answer.trimEnd()}\n\n${unexplained.map(explainNotDone).join('\n')}`;
  return { answer: answer.trim(), cited, invalidCitations: invalid };
}

/** A `[` with up to four digits at the end of the text: maybe the start of a citation, not decided yet. */
const OPEN_CITATION = /\[\d{0,4}$/;

/**
 * The answer's text as the model streams it, with the same checks as
 * `checkAnswer` applied on the way: a `[n]` naming no source is dropped
 * before it is sent, leading whitespace is not sent and trailing whitespace
 * waits for the text after it. So what `push` returned, joined, is always a
 * prefix of `checkAnswer(all text).answer`, and `end` returns the rest (the
 * held tail and the explanations of agents the answer did not mention).
 */
export class StreamedAnswer {
  private raw = '';
  /** Text not yet checked: a possible citation being written. */
  private pending = '';
  /** Checked text not sent yet (trailing whitespace). */
  private held = '';
  private sent = '';

  constructor(
    private readonly sources: readonly Source[],
    private readonly missing: readonly NotDone[],
  ) {}

  /** The part of the answer that can be sent now (possibly empty). */
  push(chunk: string): string {
    this.raw += chunk;
    let text = this.pending + chunk;
    const open = OPEN_CITATION.exec(text);
    this.pending = open ? open[0] : '';
    if (open) text = text.slice(0, open.index);
    const checked = text.replace(/\[(\d{1,4})\]/g, (m, d: string) => (Number(d) >= 1 && Number(d) <= this.sources.length ? m : ''));
    let out = this.held + checked;
    if (!this.sent) out = out.trimStart();
    const body = out.trimEnd();
    this.held = out.slice(body.length);
    this.sent += body;
    return body;
  }

  /** Everything the model wrote so far. */
  get text(): string {
    return this.raw;
  }

  /** The checked answer and what is left to send; `replaces` when what was sent is not its start (then the client shows `answer`). */
  end(): { checked: CheckedAnswer; rest: string; replaces: boolean } {
    const checked = checkAnswer(this.raw, this.sources, this.missing);
    const replaces = !checked.answer.startsWith(this.sent);
    return { checked, rest: replaces ? '' : checked.answer.slice(this.sent.length), replaces };
  }
}

/** A stored answer streamed again: word by word, the whitespace before each word kept. */
export function answerChunks(answer: string): string[] {
  return answer.match(/\s*\S+/g) ?? [];
}

/** A rolling summary of the last turns, extractive: each question with the first sentence of its answer. */
export function extractiveSummary(turns: ReadonlyArray<{ question: string; answer: string }>): string {
  return turns
    .map((t) => {
      const first = /^[^\n]*?[.!?](\s|$)/.exec(t.answer)?.[0] ?? t.answer.split('\n')[0] ?? '';
      return `Q: ${t.question.slice(0, 300)} → A: ${first.trim().slice(0, 300)}`;
    })
    .join('\n');
}
