/**
 * A playbook's `output` block (format, template, sections, save_to,
 * summary_prompt) as part of the one Plan IR: a trailing `route_output` tool
 * node that depends on every sink node, so the run routes its result when
 * everything else has finished, through the same ActionService path, the same
 * delivery log and the same exactly-once keys as any step (its node id is
 * `output`, so deliveries are keyed `runId:output:<index>-<type>`). A
 * `summary_prompt` adds an llm node before it — only when the playbook's
 * execution_mode allows llm work and a model is configured; otherwise the
 * routing report says that no summary was written and why.
 *
 * Also here: the validation-time checks of the block and of every
 * `route_output` step's destinations (each problem naming its field), and the
 * routing report a finished run carries.
 */
import { extractReferences, isBuiltin } from '@af/expr';
import type { PlanNode } from '../ir.js';
import type { PlanIssue } from '../issues/plan-issue.js';
import { DESTINATION_FORMATS, playbookDestinationProblems, type DestinationFormat } from './output-destinations.js';
import type { FlatStep } from './playbook-steps.js';
import type { Playbook } from './playbook.schema.js';

/** The id of the output node (`run_output` when a step already took `output`). */
export const OUTPUT_NODE_ID = 'output';
const OUTPUT_NODE_FALLBACK_ID = 'run_output';
const SUMMARY_NODE_SUFFIX = '_summary';
/** Plan metadata naming the output node (the orchestrator puts its report on the `complete` frame). */
export const OUTPUT_NODE_METADATA = 'output_node';

export interface OutputBlockOptions {
  /** A chat model is configured: a `summary_prompt` gets an llm node (default false: no summary, said in the report). */
  hasModel?: boolean;
}

type OutputBlock = NonNullable<Playbook['output']>;

/** Problems of the output block and of every route_output step's destinations, each naming its field. */
export function outputBlockIssues(doc: Playbook, steps: readonly FlatStep[]): PlanIssue[] {
  const issues: PlanIssue[] = [];
  for (const s of steps) {
    if (s.isGroup || s.step.action !== 'route_output' || s.step.params?.destinations === undefined) continue;
    const field = `${s.source}.params.destinations`;
    for (const p of playbookDestinationProblems(s.step.params.destinations, field)) issues.push({ code: 'invalid_destination', field: p.field, message: p.reason });
  }
  const out = doc.output;
  if (!out) return issues;
  const known = knownRoots(doc, steps);
  // Section sources (step output keys) are checked with the document's other rules (playbook-checks.ts).
  if (out.template !== undefined) {
    const refs = referencesOf(out.template);
    if (!refs.ok) issues.push({ code: 'invalid_template', field: 'output.template', message: `the template cannot be rendered: ${refs.reason}` });
    else for (const root of refs.roots) if (!known.has(root)) issues.push(unknownRoot('output.template', root, known));
  }
  return issues;
}

/**
 * The nodes the output block adds (the summary llm node, then the
 * route_output node) and the plan metadata naming them; nothing without an
 * output block. `nodes` are the steps' nodes; `aliases` maps step names to
 * output keys (references are stored under output keys).
 */
export function outputBlockNodes(
  doc: Playbook,
  nodes: readonly PlanNode[],
  aliases: ReadonlyMap<string, string>,
  opts: OutputBlockOptions = {},
): { nodes: PlanNode[]; metadata: Record<string, unknown> } {
  const out = doc.output;
  if (!out) return { nodes: [], metadata: {} };
  const taken = new Set(nodes.flatMap((n) => [n.id, n.outputKey ?? n.id]));
  const id = taken.has(OUTPUT_NODE_ID) ? OUTPUT_NODE_FALLBACK_ID : OUTPUT_NODE_ID;
  const sinks = sinkNodes(nodes);
  const data = outputData(out, nodes, sinks, aliases);
  const format = destinationFormat(out.format);
  const params: Record<string, unknown> = { destinations: destinations(doc, out, format), output_block: true };
  const inputs: Record<string, unknown> = { data };
  const records = recordsReference(out, nodes, sinks, aliases);
  if (records !== undefined) inputs.records = records;
  const added: PlanNode[] = [];
  const dependsOn = sinks.map((n) => n.id);
  const metadata: Record<string, unknown> = { [OUTPUT_NODE_METADATA]: id };

  if (out.summary_prompt !== undefined) {
    const why = summaryUnavailable(doc, opts);
    if (why) params.summary = { status: 'skipped', reason: why };
    else {
      const summaryId = `${id}${SUMMARY_NODE_SUFFIX}`;
      added.push({
        id: summaryId,
        kind: 'llm',
        action: 'llm_analyze',
        description: "the output block's summary_prompt",
        inputs: { data },
        params: { instructions: out.summary_prompt },
        dependsOn: [...dependsOn],
        outputKey: summaryId,
        outputSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
        // A summary that cannot be written must not stop the routing: the report says so.
        errorPolicy: { onError: 'skip', fallback: [], rollbackOnError: false },
        source: 'output.summary_prompt',
      });
      inputs.summary = `{${summaryId}.summary}`;
      params.summary = { status: 'requested', node: summaryId };
      dependsOn.push(summaryId);
      metadata.output_summary_node = summaryId;
    }
  }
  added.push({
    id,
    kind: 'tool',
    action: 'route_output',
    description: "the playbook's output block",
    inputs,
    params,
    dependsOn,
    outputKey: id,
    errorPolicy: { onError: 'stop', fallback: [], rollbackOnError: false },
    source: 'output',
  });
  return { nodes: added, metadata };
}

/**
 * What a finished run reports about its output block: the output node's
 * routing report (every destination's status and details), `routed_to` and
 * `success`; undefined when the plan has no output node or it did not run.
 */
export function outputRoutingReport(
  plan: { metadata?: Record<string, unknown> },
  outputOf: (nodeId: string) => unknown,
): { routing_report: unknown[]; routed_to: unknown[]; output_success: boolean } | undefined {
  const id = plan.metadata?.[OUTPUT_NODE_METADATA];
  if (typeof id !== 'string') return undefined;
  const out = outputOf(id);
  if (out === null || typeof out !== 'object' || !Array.isArray((out as { routing_report?: unknown }).routing_report)) return undefined;
  const o = out as { routing_report: unknown[]; routed_to?: unknown; success?: unknown };
  return { routing_report: o.routing_report, routed_to: Array.isArray(o.routed_to) ? o.routed_to : [], output_success: o.success === true };
}

function summaryUnavailable(doc: Playbook, opts: OutputBlockOptions): string | undefined {
  if (doc.execution_mode === 'deterministic') return 'no summary was written: execution_mode is deterministic (summary_prompt needs llm_augmented or hybrid)';
  if (!opts.hasModel) return 'no summary was written: no LLM model is configured (set LLM_PROVIDER)';
  return undefined;
}

/** Nodes no other node depends on (fallback-only nodes are not part of the flow). */
function sinkNodes(nodes: readonly PlanNode[]): PlanNode[] {
  const needed = new Set(nodes.flatMap((n) => n.dependsOn ?? []));
  return nodes.filter((n) => !needed.has(n.id) && n.fallbackFor === undefined);
}

function keyOf(n: PlanNode): string {
  return n.outputKey ?? n.id;
}

/** `{key}` of a section source (`key`, `key.field` or already `{key.field}`), step names rewritten to output keys. */
function sectionReference(source: string): string {
  const s = source.trim();
  return s.startsWith('{') ? s : `{${s}}`;
}

function rewrite(ref: string, aliases: ReadonlyMap<string, string>): string {
  return ref.replace(/^\{\{?\s*([A-Za-z_]\w*)/, (m, root: string) => m.replace(root, aliases.get(root) ?? root));
}

/** What the destinations render: the sections, or the template, or the sinks' outputs. */
function outputData(out: OutputBlock, nodes: readonly PlanNode[], sinks: readonly PlanNode[], aliases: ReadonlyMap<string, string>): unknown {
  if (out.sections?.length) {
    return {
      sections: out.sections.map((s) => ({
        title: s.title,
        ...(s.format !== undefined ? { format: destinationFormat(s.format) } : {}),
        content: rewrite(sectionReference(s.source), aliases),
      })),
      ...(out.template !== undefined ? { text: rewriteAll(out.template, aliases) } : {}),
    };
  }
  if (out.template !== undefined) return rewriteAll(out.template, aliases);
  const shown = sinks.filter((n) => n.kind !== 'approval');
  const from = shown.length ? shown : nodes.slice(-1);
  if (from.length === 1) return `{${keyOf(from[0]!)}}`;
  return Object.fromEntries(from.map((n) => [keyOf(n), `{${keyOf(n)}}`]));
}

function rewriteAll(text: string, aliases: ReadonlyMap<string, string>): string {
  return text.replace(/\{(\{?)\s*([A-Za-z_]\w*)/g, (m, _b: string, root: string) => m.replace(root, aliases.get(root) ?? root));
}

/** The records a workspace table gets: the first section's source, else the last sink step's output. */
function recordsReference(out: OutputBlock, nodes: readonly PlanNode[], sinks: readonly PlanNode[], aliases: ReadonlyMap<string, string>): string | undefined {
  if (out.save_to !== 'workspace' && out.save_to !== 'both') return undefined;
  if (out.sections?.length) return rewrite(sectionReference(out.sections[0]!.source), aliases);
  const shown = sinks.filter((n) => n.kind !== 'approval');
  const last = shown.at(-1) ?? nodes.at(-1);
  return last ? `{${keyOf(last)}}` : undefined;
}

function destinationFormat(f: string | undefined): DestinationFormat {
  if (f === 'structured' || f === undefined) return f === 'structured' ? 'json' : 'markdown';
  return (DESTINATION_FORMATS as readonly string[]).includes(f) ? (f as DestinationFormat) : 'markdown';
}

/** Table names are lower-case identifiers: the playbook id (kebab-case) with `_`. */
export function outputTableName(playbookId: string): string {
  const name = playbookId.replace(/-/g, '_').slice(0, 63);
  return /^[a-z]/.test(name) ? name : `pb_${name}`.slice(0, 63);
}

function destinations(doc: Playbook, out: OutputBlock, format: DestinationFormat): Record<string, unknown>[] {
  const list: Record<string, unknown>[] = [{ type: 'chat', format: format === 'csv' ? 'markdown' : format }];
  const saveTo = out.save_to ?? 'none';
  if (saveTo === 'document' || saveTo === 'both') {
    list.push({ type: 'document', format, config: { filename_template: `${doc.id}_{today}`, folder: `Playbooks/${doc.id}`, create_if_missing: true } });
  }
  if (saveTo === 'workspace' || saveTo === 'both') {
    list.push({ type: 'data_workspace_table', config: { table_name: outputTableName(doc.id), schema_mapping: 'infer', source: `playbook:${doc.id}` } });
  }
  return list;
}

function knownRoots(doc: Playbook, steps: readonly FlatStep[]): Set<string> {
  const known = new Set<string>(doc.inputs.map((i) => i.name));
  for (const s of steps) {
    if (s.isGroup) continue;
    known.add(s.name);
    known.add(s.outputKey);
  }
  return known;
}

function referencesOf(text: string): { ok: true; roots: string[] } | { ok: false; reason: string } {
  try {
    return { ok: true, roots: [...new Set(extractReferences(text).map((r) => r.root).filter((r) => !isBuiltin(r)))] };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

function unknownRoot(field: string, root: string, known: ReadonlySet<string>): PlanIssue {
  return { code: 'unknown_reference', field, message: `'${root}' is not a step, output key or input of this playbook (known: ${[...known].join(', ') || 'none'})` };
}
