/**
 * Playbook step → PlanNode. Tool steps keep their action, inputs and params
 * (`connector`/`endpoint`/`operations` move into params); llm_task steps carry
 * their output_schema as JSON Schema; approval steps carry the preview as an
 * input reference so the orchestrator resolves it like any other input, and
 * `allow_team_decisions` + `team_ids` as the params the orchestrator puts on
 * the approval request (who besides the owner may decide).
 */
import { extractReferences, formatPath } from '@af/expr';
import type { PlanNode } from '../ir.js';
import type { FlatStep } from './playbook-steps.js';
import { outputSchemaToJsonSchema } from './step-output.js';

/**
 * Rewrites references that use a step's name where its output_key differs
 * (`{pull.count}` → `{pull_990_data.count}`): the orchestrator stores outputs
 * under output keys only.
 */
export function rewriteRoots<T>(value: T, aliases: ReadonlyMap<string, string>): T {
  if (aliases.size === 0) return value;
  if (typeof value === 'string') {
    if (!value.includes('{')) return value;
    let refs;
    try {
      refs = extractReferences(value);
    } catch {
      return value; // malformed: already reported
    }
    let out: string = value;
    for (let k = refs.length - 1; k >= 0; k--) {
      const r = refs[k]!;
      const to = aliases.get(r.root);
      if (to === undefined) continue;
      const text = formatPath(to, r.path);
      out = out.slice(0, r.start) + (r.form === 'double' ? `{{${text}}}` : `{${text}}`) + out.slice(r.end);
    }
    return out as T;
  }
  if (Array.isArray(value)) return value.map((v) => rewriteRoots(v, aliases)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = rewriteRoots(v, aliases);
    return out as T;
  }
  return value;
}

function errorPolicy(flat: FlatStep): PlanNode['errorPolicy'] {
  const s = flat.step;
  // Seed §10: `skip` is the default; `retry` retries once, then behaves as skip.
  const onError = s.on_error ?? 'skip';
  const policy: NonNullable<PlanNode['errorPolicy']> = { onError, fallback: [], rollbackOnError: false };
  const retries = onError === 'retry' ? (s.retry_count ?? 1) : s.retry_count;
  if (retries !== undefined && retries > 0) {
    policy.retry = { maxRetries: retries, backoffMs: 1000, multiplier: 2, maxBackoffMs: 60_000, retryableCodes: [] };
  }
  if (s.timeout_seconds !== undefined) policy.timeoutMs = s.timeout_seconds * 1000;
  return policy;
}

/** The PlanNode of one (non-group) step. */
export function stepToNode(flat: FlatStep, dependsOn: string[], aliases: ReadonlyMap<string, string>): PlanNode {
  const s = flat.step;
  const node: PlanNode = {
    id: flat.name,
    kind: flat.stepType === 'tool' ? 'tool' : flat.stepType === 'llm_task' ? 'llm' : 'approval',
    inputs: {},
    params: {},
    dependsOn,
    source: flat.source,
  };
  if (s.description !== undefined) node.description = s.description;
  if (s.condition !== undefined) node.condition = rewriteRoots(s.condition, aliases);
  if (flat.stepType === 'approval') {
    node.action = 'approval';
    const inputs: Record<string, unknown> = {};
    if (s.prompt !== undefined) inputs.prompt = rewriteRoots(s.prompt, aliases);
    if (s.preview_from !== undefined) inputs.preview = `{${aliases.get(s.preview_from) ?? s.preview_from}}`;
    node.inputs = inputs;
    node.params = {
      ...(s.preview_from !== undefined ? { preview_from: aliases.get(s.preview_from) ?? s.preview_from } : {}),
      preview_limit: s.preview_limit ?? 10,
      on_reject: s.on_reject ?? 'stop',
      ...(s.timeout_minutes !== undefined ? { timeout_minutes: s.timeout_minutes } : {}),
      ...(s.allow_team_decisions !== undefined ? { allow_team_decisions: s.allow_team_decisions } : {}),
      // The approval service compares ids as text against the gateway's lower-case ones.
      ...(s.team_ids !== undefined ? { team_ids: s.team_ids.map((t) => t.toLowerCase()) } : {}),
    };
    return node;
  }
  if (s.action !== undefined) node.action = s.action;
  node.outputKey = flat.outputKey;
  node.inputs = rewriteRoots(s.inputs ?? {}, aliases);
  const params: Record<string, unknown> = rewriteRoots({ ...(s.params ?? {}) }, aliases);
  if (s.connector !== undefined) params.connector = s.connector;
  if (s.endpoint !== undefined) params.endpoint = s.endpoint;
  if (s.operations !== undefined) params.operations = s.operations;
  if (flat.stepType === 'llm_task' && s.action === 'research_with_tools' && params.max_rounds === undefined) params.max_rounds = 3;
  // A plugin tool (registry category `plugin:<name>`) runs in its plugin: the node names it as workflow `action` steps do.
  const category = flat.contract?.category ?? '';
  if (category.startsWith('plugin:')) params.plugin = category.slice('plugin:'.length);
  node.params = params;
  if (flat.stepType === 'llm_task' && s.output_schema) node.outputSchema = outputSchemaToJsonSchema(s.output_schema);
  node.errorPolicy = errorPolicy(flat);
  return node;
}
