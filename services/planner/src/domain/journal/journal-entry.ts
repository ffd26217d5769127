/**
 * The journal entry written after an agent run, from the finished run as the
 * orchestrator reports it: task status, one detail entry per step, the
 * entities mentioned (the run's entity inputs and entity names found in step
 * outputs), the outputs produced, the error summary, and a summary the engine
 * writes from those facts (a model may replace it: app/agent-runs.ts). Pure.
 */

export const JOURNAL_TASK_STATUSES = ['complete', 'partial', 'error', 'awaiting_approval'] as const;
export type JournalTaskStatus = (typeof JOURNAL_TASK_STATUSES)[number];

export interface FinishedNode {
  node_id: string;
  kind?: string;
  action?: string;
  status: string;
  error?: string;
  output?: unknown;
}

/** The finished run as the gateway hands it over (FinishAgentRun). */
export interface FinishedRun {
  status: string;
  task_status?: string;
  error?: string;
  error_summary?: string;
  steps_completed?: number;
  nodes: FinishedNode[];
  outputs?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  connectors_called?: Array<Record<string, unknown>>;
  entities_discovered?: number;
  outputs_produced?: Array<Record<string, unknown>>;
}

export interface DetailEntry {
  step: string;
  action: string;
  status: string;
  result: string;
}

export interface JournalDraft {
  summary: string;
  detailEntries: DetailEntry[];
  entitiesMentioned: string[];
  stepsCompleted: number;
  entitiesDiscovered: number;
  outputsProduced: Array<Record<string, unknown>>;
  connectorsCalled: Array<Record<string, unknown>>;
  taskStatus: JournalTaskStatus;
  errorSummary: string | null;
}

const MAX_ENTITIES = 50;
const MAX_NAME = 200;

/**
 * complete / partial / error / awaiting_approval: the run's own task status
 * once it ended; a run that has not ended is written only when it waits for
 * a person (a `hitl_request`), so `awaiting_approval` even if it has not
 * parked yet.
 */
export function journalTaskStatus(run: Pick<FinishedRun, 'status' | 'task_status'>): JournalTaskStatus {
  if (!['completed', 'failed', 'cancelled'].includes(run.status)) return 'awaiting_approval';
  if ((JOURNAL_TASK_STATUSES as readonly string[]).includes(run.task_status ?? '') && run.task_status !== 'awaiting_approval') return run.task_status as JournalTaskStatus;
  return run.status === 'completed' ? 'complete' : 'error';
}

/** What a step did, in a few words: counts of arrays in its output, its error, or why it was skipped. */
export function stepResult(node: FinishedNode): string {
  if (node.status === 'failed') return `failed: ${clip(node.error ?? 'no reason given', 200)}`;
  if (node.status !== 'completed') return node.status;
  const out = node.output;
  if (out && typeof out === 'object' && !Array.isArray(out)) {
    const counts = Object.entries(out as Record<string, unknown>)
      .filter(([, v]) => Array.isArray(v))
      .map(([k, v]) => `${(v as unknown[]).length} ${k}`);
    if (counts.length) return counts.slice(0, 3).join(', ');
  }
  if (Array.isArray(out)) return `${out.length} items`;
  return 'done';
}

/** Entity names: string inputs named like entities, and `name` fields of `entities`-like arrays in outputs. */
export function entitiesMentioned(run: Pick<FinishedRun, 'inputs' | 'nodes'>, extracted: readonly string[] = []): string[] {
  const names = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.trim() && names.size < MAX_ENTITIES) names.add(clip(v.trim(), MAX_NAME));
  };
  extracted.forEach(add);
  for (const [k, v] of Object.entries(run.inputs ?? {})) if (/(entity|name|organization|org|person|company)/i.test(k)) add(v);
  for (const n of run.nodes) {
    if (n.status !== 'completed' || !n.output || typeof n.output !== 'object') continue;
    for (const key of ['entities', 'new_entities', 'resolved']) {
      const list = (n.output as Record<string, unknown>)[key];
      if (Array.isArray(list)) for (const e of list) add(e && typeof e === 'object' ? ((e as Record<string, unknown>).canonical_name ?? (e as Record<string, unknown>).name) : e);
    }
  }
  return [...names];
}

export function draftJournalEntry(run: FinishedRun, about: { handle: string; strategy: string; playbookId?: string; query: string; extractedEntities?: readonly string[] }): JournalDraft {
  const taskStatus = journalTaskStatus(run);
  const detailEntries = run.nodes.map((n) => ({ step: n.node_id, action: n.action ?? n.kind ?? 'step', status: n.status, result: stepResult(n) }));
  const stepsCompleted = run.steps_completed ?? run.nodes.filter((n) => n.status === 'completed').length;
  const entities = entitiesMentioned(run, about.extractedEntities);
  const connectorsCalled = run.connectors_called ?? [];
  const outputsProduced = run.outputs_produced ?? [];
  const entitiesDiscovered = run.entities_discovered ?? 0;
  const errorSummary = taskStatus === 'complete' ? null : run.error_summary || run.error || null;
  return {
    summary: engineSummary({ ...about, taskStatus, stepsCompleted, steps: run.nodes.length, entities, connectorsCalled, outputsProduced, entitiesDiscovered, errorSummary }),
    detailEntries,
    entitiesMentioned: entities,
    stepsCompleted,
    entitiesDiscovered,
    outputsProduced,
    connectorsCalled,
    taskStatus,
    errorSummary,
  };
}

function engineSummary(f: {
  handle: string;
  strategy: string;
  playbookId?: string;
  query: string;
  taskStatus: JournalTaskStatus;
  stepsCompleted: number;
  steps: number;
  entities: string[];
  connectorsCalled: Array<Record<string, unknown>>;
  outputsProduced: Array<Record<string, unknown>>;
  entitiesDiscovered: number;
  errorSummary: string | null;
}): string {
  const how = f.playbookId ? `ran playbook '${f.playbookId}' (${f.strategy})` : `answered with ${f.strategy}`;
  const parts = [`@${f.handle} ${how} for "${clip(f.query, 120)}": ${f.stepsCompleted} of ${f.steps} steps completed (${f.taskStatus.replace('_', ' ')}).`];
  if (f.entities.length) parts.push(`Entities: ${f.entities.slice(0, 5).join(', ')}${f.entities.length > 5 ? ` and ${f.entities.length - 5} more` : ''}.`);
  if (f.connectorsCalled.length) {
    parts.push(
      `Called ${f.connectorsCalled.map((c) => `${String(c.connector)}.${String(c.endpoint)}${typeof c.results_count === 'number' ? ` (${c.results_count} results)` : ''}`).join(', ')}.`,
    );
  }
  if (f.entitiesDiscovered) parts.push(`Found ${f.entitiesDiscovered} entities.`);
  if (f.outputsProduced.length) parts.push(`Produced ${f.outputsProduced.map((o) => String(o.type)).join(', ')}.`);
  if (f.errorSummary) parts.push(`Problems: ${clip(f.errorSummary, 300)}`);
  return parts.join(' ');
}

/**
 * The answer a chat shows: the text of the last llm step (`answer`, `text`,
 * `report`, `summary` or a string output), else the engine's summary of what
 * ran. A run that failed says so, with its error — never an invented answer.
 */
export function finalAnswer(run: FinishedRun, summary: string): string {
  if (run.status === 'failed' || run.status === 'cancelled') return `The run ${run.status}: ${run.error_summary || run.error || 'no reason given'}`;
  for (const n of [...run.nodes].reverse()) {
    if (n.status !== 'completed' || n.kind !== 'llm') continue;
    const text = textOf(n.output);
    if (text) return text;
  }
  return summary;
}

function textOf(out: unknown): string | undefined {
  if (typeof out === 'string' && out.trim()) return out;
  if (!out || typeof out !== 'object') return undefined;
  const o = out as Record<string, unknown>;
  for (const k of ['answer', 'text', 'report', 'summary', 'content', 'result']) if (typeof o[k] === 'string' && (o[k] as string).trim()) return o[k] as string;
  return undefined;
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
