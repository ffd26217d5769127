/**
 * Playbook YAML → PlanGraph (seed §5), with every step's link validation.
 * Pipeline: YAML → schema → flatten steps → document rules → step links
 * (references, types, required inputs, connectors) → dependencies → nodes →
 * IR schema → structural validation.
 */
import { defaultActionRegistry, type ActionIORegistry } from '../contracts/action-registry.js';
import type { ConnectorContractLookup } from '../contracts/connector-contract.js';
import { validateParsedPlan } from '../graph/validate-plan.js';
import { PlanGraphSchema, type PlanGraph, type PlanNode } from '../ir.js';
import { stepIssueToPlanIssue, type PlanIssue, type StepIssue, type StepValidationResult } from '../issues/plan-issue.js';
import { zodIssuesToPlanIssues } from '../issues/zod-issues.js';
import { playbookIssues } from './playbook-checks.js';
import { playbookDependencies } from './playbook-dependencies.js';
import { rewriteRoots, stepToNode } from './playbook-nodes.js';
import { flattenSteps, type FlatStep } from './playbook-steps.js';
import { allowedPlaybookKeys, PlaybookSchema, type Playbook } from './playbook.schema.js';
import { ReferenceResolver } from './step-references.js';
import { validateStepLinks } from './step-links.js';
import { linkWarnings } from './link-warnings.js';
import { overlapsSchemaIssue, PLACEHOLDER_STEP_PREFIX, salvagePlaybook } from './salvage.js';
import { parseYamlSource, type YamlSource } from './yaml-source.js';
import { playbookSizeIssue } from '../limits/plan-size.js';
import { outputBlockIssues, outputBlockNodes } from './output-block.js';
import { enrichNodes } from './enrich-nodes.js';

export interface CompilePlaybookOptions {
  /** Connectors bound to the agent profile; without it connector steps are checked against the generic envelope only. */
  connectors?: ConnectorContractLookup;
  /** Action contracts (built-ins + plugins); defaults to the built-ins. */
  registry?: ActionIORegistry;
  /** Data-dependency depth above which a `long_chain` warning is given (default 10). */
  longChainThreshold?: number;
  /** Most steps (parallel_steps included) a playbook may have (default: the configured PLAN_MAX_NODES). */
  maxNodes?: number;
  /** A chat model is configured: the output block's `summary_prompt` becomes an llm node (else the routing report says no summary was written). */
  hasModel?: boolean;
  /**
   * The agent profile running the playbook sets `output_config.auto_enrich_graph`:
   * enrichment nodes after each connector step, as the playbook's own `output.auto_enrich_graph` adds.
   */
  autoEnrichGraph?: boolean;
}

export type CompileResult =
  | { ok: true; plan: PlanGraph; results: StepValidationResult[]; warnings: PlanIssue[] }
  | { ok: false; errors: PlanIssue[]; results: StepValidationResult[]; warnings: PlanIssue[] };

let sharedRegistry: ActionIORegistry | undefined;

/** Compiles playbook YAML text. Never throws for bad input: every problem is a PlanIssue. */
export function compilePlaybook(yamlText: string, opts: CompilePlaybookOptions = {}): CompileResult {
  const parsed = parseYamlSource(yamlText);
  if (!parsed.ok) return { ok: false, errors: parsed.issues, results: [], warnings: [] };
  return compilePlaybookValue(parsed.source.value, opts, parsed.source);
}

/** Compiles an already-parsed playbook document (JSON from the API, JSONB from storage). */
export function compilePlaybookValue(value: unknown, opts: CompilePlaybookOptions = {}, source?: YamlSource): CompileResult {
  const locate = (i: PlanIssue): PlanIssue => (source ? source.locate(i) : i);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, errors: [{ code: 'invalid_field', field: '', message: 'a playbook must be a mapping (id, name, steps, …)' }], results: [], warnings: [] };
  }
  // Before anything that grows with the steps (schema, links, positions): one issue, not one per step.
  const tooMany = playbookSizeIssue(value, opts.maxNodes);
  if (tooMany) return { ok: false, errors: [tooMany], results: [], warnings: [] };
  const schema = PlaybookSchema.safeParse(value, { reportInput: true });
  if (!schema.success) {
    // Schema errors and link errors in one round: the links are checked on a repaired copy.
    const schemaErrors = zodIssuesToPlanIssues(schema.error, '', allowedPlaybookKeys);
    const repaired = salvagePlaybook(value as Record<string, unknown>, schemaErrors);
    if (!repaired) return { ok: false, errors: schemaErrors.map(locate), results: [], warnings: [] };
    const checked = checkPlaybook(repaired, opts, locate);
    const fields = schemaErrors.map((e) => e.field);
    const errors = [...schemaErrors, ...checked.errors.filter((e) => !overlapsSchemaIssue(e, fields))];
    const results = checked.results.filter((r) => !r.step.startsWith(PLACEHOLDER_STEP_PREFIX));
    for (const r of results) {
      r.errors = r.errors.filter((e) => !overlapsSchemaIssue(stepIssueToPlanIssue(r, e), fields));
      for (const e of schemaErrors) if (e.field.startsWith(`${r.source}.`) && !isInSubStep(e.field, r.source)) r.errors.unshift(toStepIssue(r.source, e));
      r.valid = r.errors.length === 0;
    }
    return { ok: false, errors: sortByPosition(errors.map(locate)), results, warnings: checked.warnings };
  }
  const doc = schema.data;
  const checked = checkPlaybook(doc, opts, locate);
  if (checked.errors.length > 0) return { ok: false, errors: sortByPosition(checked.errors.map(locate)), results: checked.results, warnings: checked.warnings };

  const plan = buildPlan(doc, checked.steps, checked.producers, source, opts);
  const structural = validateParsedPlan(plan);
  if (structural.length > 0) {
    // Should not happen for a playbook that passed the step checks; map node paths back to steps.
    const bySource = plan.nodes.map((n) => n.source ?? '');
    const mapped = structural.map((i) => ({ ...i, field: i.field.replace(/^nodes\[(\d+)\]/, (_, k: string) => bySource[Number(k)] ?? `nodes[${k}]`) }));
    return { ok: false, errors: mapped.map(locate), results: checked.results, warnings: checked.warnings };
  }
  return { ok: true, plan, results: checked.results, warnings: checked.warnings };
}

interface CheckedPlaybook {
  errors: PlanIssue[];
  warnings: PlanIssue[];
  results: StepValidationResult[];
  steps: FlatStep[];
  producers: Map<FlatStep, FlatStep[]>;
}

/** Document rules and every step's links (errors not yet located; step issues are). */
function checkPlaybook(doc: Playbook, opts: CompilePlaybookOptions, locate: (i: PlanIssue) => PlanIssue): CheckedPlaybook {
  const registry = opts.registry ?? (sharedRegistry ??= defaultActionRegistry());
  const steps = flattenSteps(doc.steps, registry);
  const docIssues = playbookIssues(doc, steps);

  const inputs = new Map(doc.inputs.map((i) => [i.name, i.type] as const));
  const resolver = new ReferenceResolver(steps, inputs, opts.connectors);
  const producers = new Map<FlatStep, FlatStep[]>();
  const results: StepValidationResult[] = steps.map((flat) => {
    const links = validateStepLinks(flat, resolver);
    producers.set(flat, links.producers);
    return { step: flat.name, source: flat.source, valid: links.errors.length === 0, errors: links.errors, warnings: links.warnings };
  });
  linkWarnings(doc, steps, producers, results, opts.longChainThreshold ?? 10);
  // Step issues carry the position of their field too, so a client can mark them in the editor.
  for (const r of results) for (const i of [...r.errors, ...r.warnings]) positionStepIssue(r, i, locate);

  const errors: PlanIssue[] = [...docIssues.errors, ...outputBlockIssues(doc, steps)];
  for (const r of results) for (const e of r.errors) errors.push(stepIssueToPlanIssue(r, e));
  return { errors, warnings: docIssues.warnings.map(locate), results, steps, producers };
}

function positionStepIssue(r: StepValidationResult, issue: StepIssue, locate: (i: PlanIssue) => PlanIssue): void {
  const at = locate(stepIssueToPlanIssue(r, issue));
  if (at.line !== undefined) issue.line = at.line;
  if (at.column !== undefined) issue.column = at.column;
}

/** `steps[1].parallel_steps[0].x` is inside `steps[1]` but belongs to its sub-step's result. */
function isInSubStep(field: string, source: string): boolean {
  return !source.includes('parallel_steps') && field.startsWith(`${source}.parallel_steps[`) && /^\.parallel_steps\[\d+\]\./.test(field.slice(source.length));
}

function toStepIssue(source: string, e: PlanIssue): StepIssue {
  const out: StepIssue = { code: e.code, field: e.field.slice(source.length + 1), message: e.message };
  if (e.suggestedFix !== undefined) out.suggestedFix = e.suggestedFix;
  return out;
}

/** Document order (issues without a position keep their place at the end). */
function sortByPosition(issues: PlanIssue[]): PlanIssue[] {
  const key = (i: PlanIssue) => (i.line === undefined ? Number.MAX_SAFE_INTEGER : i.line * 10_000 + (i.column ?? 0));
  return issues.map((i, k) => ({ i, k })).sort((a, b) => key(a.i) - key(b.i) || a.k - b.k).map(({ i }) => i);
}

function buildPlan(doc: Playbook, steps: readonly FlatStep[], producers: ReadonlyMap<FlatStep, readonly FlatStep[]>, source?: YamlSource, opts: CompilePlaybookOptions = {}): PlanGraph {
  const deps = playbookDependencies(steps, producers);
  // `{step_name…}` where the step's output_key differs is rewritten to the output key.
  const keys = new Set(steps.filter((s) => !s.isGroup).map((s) => s.outputKey));
  const aliases = new Map<string, string>();
  for (const s of steps) if (!s.isGroup && s.name !== s.outputKey && !keys.has(s.name)) aliases.set(s.name, s.outputKey);

  const nodes: PlanNode[] = [];
  for (const s of steps) if (!s.isGroup) nodes.push(stepToNode(s, deps.get(s) ?? [], aliases));
  const version = typeof doc.version === 'number' ? (source?.sourceText(['version']) ?? String(doc.version)) : doc.version;
  const metadata: Record<string, unknown> = {
    required_connectors: doc.required_connectors,
    triggers: doc.triggers,
  };
  if (doc.description !== undefined) metadata.description = doc.description;
  if (doc.category !== undefined) metadata.category = doc.category;
  if (doc.monitor_config !== undefined) metadata.monitor_config = doc.monitor_config;
  const groups = steps.filter((s) => s.isGroup).map((g) => ({ name: g.name, steps: steps.filter((s) => s.group === g.name).map((s) => s.name) }));
  if (groups.length > 0) metadata.parallel_groups = groups;
  // The output block runs when everything else has: a trailing route_output node (output-block.ts).
  const output = outputBlockNodes(doc, nodes, aliases, opts.hasModel !== undefined ? { hasModel: opts.hasModel } : {});
  nodes.push(...output.nodes);
  Object.assign(metadata, output.metadata);
  // After the output block: enrichment feeds the graph, not the report, so the output node does not wait for it.
  const enrich = enrichNodes(doc, steps, nodes, opts.connectors, opts.autoEnrichGraph === true);
  if (enrich.length > 0) {
    nodes.push(...enrich);
    metadata.enrich_nodes = enrich.map((n) => n.id);
  }

  return PlanGraphSchema.parse({
    id: doc.id,
    name: doc.name,
    provenance: { frontEnd: 'playbook', sourceId: doc.id, ...(version !== undefined ? { sourceVersion: version } : {}) },
    executionMode: doc.execution_mode,
    runContext: doc.run_context,
    approvalPolicy: doc.approval_policy,
    inputs: doc.inputs.map((i) => ({
      name: i.name,
      type: i.type,
      required: i.required,
      ...(i.description !== undefined ? { description: i.description } : {}),
      ...(i.default !== undefined ? { default: i.default } : {}),
      ...(i.extract_from !== undefined ? { extractFrom: i.extract_from } : {}),
      ...(i.enum !== undefined ? { enum: i.enum } : {}),
    })),
    nodes,
    ...(doc.output !== undefined ? { output: rewriteRoots(doc.output, aliases) } : {}),
    metadata,
  });
}
