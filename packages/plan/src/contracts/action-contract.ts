/**
 * Typed I/O contract of an action (seed §5 "Built-In Action I/O Registry",
 * §12 `ToolIOContract`): named inputs (wireable from upstream), params (static
 * settings) and outputs (what downstream steps can reference).
 */
import type { FieldSpec } from '../types/io-type.js';

export type ActionStepType = 'tool' | 'llm_task';

export interface ActionContract {
  name: string;
  description?: string;
  /** `connector`, `knowledge_graph`, `search`, `entity`, `graph_analysis`, `transform`, `persistence`, `monitor`, `journal`, `team`, `notification`, `task`, `file`, `llm`, `plugin:<name>`. */
  category: string;
  /** Which `step_type` may use the action. */
  stepType: ActionStepType;
  inputs: Record<string, FieldSpec>;
  params: Record<string, FieldSpec>;
  outputs: Record<string, FieldSpec>;
  /** `record_set`: the outputs are a connector envelope (`results`, `count`, …). */
  outputType?: 'object' | 'record_set';
  /** Inputs are free-form (llm tasks take whatever context they are wired). */
  openInputs?: boolean;
  /** Inputs / outputs come from the connector endpoint (`call_connector`, `detect_new_data`) or `output_schema`. */
  dynamicInputs?: boolean;
  dynamicOutputs?: boolean;
  /** Team / connection access the action needs (`team_post_access`, …). */
  requires?: string;
  /** Monitor detection actions: what their watermark is. */
  watermarkType?: 'timestamp' | 'hash' | 'cursor';
  /**
   * Writes or sends something outside the run. The playbook compiler keeps such
   * steps in document order (see README "Dependency rule").
   */
  sideEffect?: boolean;
}

/**
 * Compact notation for contract fields, so the registry reads like the seed:
 * `'string! Search query'` (required string), `'integer=10 Default: 10'`,
 * `'entity[]{name,type,confidence} Entities found'` (records with those fields).
 */
export function field(notation: string): FieldSpec {
  const m = /^([a-z_]+(?:\[\])?)(!)?(?:\{([^}]*)\})?(?:=(\S+))?\s*(.*)$/.exec(notation);
  if (!m) throw new Error(`bad field notation: ${notation}`);
  const [, type, bang, fieldList, def, description] = m;
  const spec: FieldSpec = { type: type! };
  if (bang) spec.required = true;
  if (fieldList !== undefined) {
    spec.fields = {};
    for (const name of fieldList.split(',').map((s) => s.trim()).filter(Boolean)) {
      const [fname, ftype] = name.split(':');
      spec.fields[fname!] = { type: ftype ?? 'any' };
    }
  }
  if (def !== undefined) {
    try {
      spec.default = JSON.parse(def);
    } catch {
      spec.default = def;
    }
  }
  if (description) spec.description = description;
  return spec;
}

/** Applies {@link field} to every entry of a map. */
export function fieldMap(map: Record<string, string>): Record<string, FieldSpec> {
  const out: Record<string, FieldSpec> = {};
  for (const [k, v] of Object.entries(map)) out[k] = field(v);
  return out;
}

/** Shorthand used by the built-in tables. */
export function tool(
  name: string,
  category: string,
  io: { description?: string; inputs?: Record<string, string>; params?: Record<string, string>; outputs?: Record<string, string> },
  extra: Partial<ActionContract> = {},
): ActionContract {
  const c: ActionContract = {
    name,
    category,
    stepType: 'tool',
    inputs: fieldMap(io.inputs ?? {}),
    params: fieldMap(io.params ?? {}),
    outputs: fieldMap(io.outputs ?? {}),
    ...extra,
  };
  if (io.description) c.description = io.description;
  return c;
}
