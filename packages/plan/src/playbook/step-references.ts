/**
 * Resolving one `{root.path}` reference of a playbook step (seed §5 rule 3):
 * the root must be a playbook input, a built-in, or a step that exists and
 * runs before this one, and the path must exist in that step's output.
 */
import { extractReferences, ExprError, formatPath, isBuiltin, isRunVariable, type PathSegment, type Reference } from '@af/expr';
import type { ConnectorContractLookup } from '../contracts/connector-contract.js';
import { BUILTIN_SUGGESTIONS } from '../graph/reference-roots.js';
import { nearestName } from '../issues/nearest-name.js';
import type { StepIssue } from '../issues/plan-issue.js';
import type { FieldSpec } from '../types/io-type.js';
import { resolvePath } from '../types/resolve-path.js';
import type { FlatStep } from './playbook-steps.js';
import { stepOutputSpec } from './step-output.js';

const INPUT_TYPE: Record<string, string> = { string: 'string', number: 'number', date: 'date', entity_name: 'string', list: 'any[]' };

function builtinType(root: string): string {
  if (root === 'execution_id' || root === 'run_id' || root === 'node_id' || root === 'datetime' || root === 'time') return 'string';
  if (root === 'index') return 'integer';
  if (root === 'current') return 'any';
  return 'date';
}

export class ReferenceResolver {
  readonly byKey = new Map<string, FlatStep>();
  readonly byName = new Map<string, FlatStep>();
  private readonly specs = new Map<FlatStep, FieldSpec>();

  constructor(
    readonly steps: readonly FlatStep[],
    /** Playbook input name → its declared type. */
    readonly inputs: ReadonlyMap<string, string>,
    readonly connectors: ConnectorContractLookup | undefined,
  ) {
    for (const s of steps) {
      if (!s.isGroup && !this.byKey.has(s.outputKey)) this.byKey.set(s.outputKey, s);
      if (!this.byName.has(s.name)) this.byName.set(s.name, s);
    }
  }

  outputSpec(step: FlatStep): FieldSpec {
    let spec = this.specs.get(step);
    if (!spec) {
      spec = stepOutputSpec(step, this.connectors);
      this.specs.set(step, spec);
    }
    return spec;
  }

  /** The step a root names: an output key first, then a step name. */
  stepFor(root: string): FlatStep | undefined {
    return this.byKey.get(root) ?? this.byName.get(root);
  }

  /** Names a suggestion may offer for an unknown root. */
  private candidates(): string[] {
    // Step names too: references may name a step (`{find_org.results}`) as well as its output_key.
    return [...new Set([...this.byKey.keys(), ...this.byName.keys()]), ...this.inputs.keys(), ...BUILTIN_SUGGESTIONS];
  }

  /**
   * Type of `ref` as seen from `current`, or an issue. `producer` is set when
   * the reference reads another step's output (a data dependency).
   */
  resolve(current: FlatStep, ref: Reference, field: string, text?: string): { spec?: FieldSpec; producer?: FlatStep; issue?: StepIssue } {
    const shown = `{${ref.raw}}`;
    const step = this.stepFor(ref.root);
    if (step) return this.resolveStep(current, step, ref, field, shown, text);
    if (this.inputs.has(ref.root) || isBuiltin(ref.root) || isRunVariable(ref.root)) {
      const type = this.inputs.get(ref.root);
      const root: FieldSpec = { type: type !== undefined ? (INPUT_TYPE[type] ?? 'any') : builtinType(ref.root) };
      const r = resolvePath(root, ref.path);
      if (r.ok) return { spec: r.spec };
      return { issue: { code: 'unresolved_reference', field, message: `${shown}: ${r.reason}` } };
    }
    const fix = nearestName(ref.root, this.candidates());
    const isStep = ref.path.length > 0;
    const issue: StepIssue = isStep
      ? { code: 'nonexistent_step', field, message: `${shown} references step '${ref.root}', which does not exist${fix ? ` (did you mean '${fix}'?)` : ''}` }
      : { code: 'unresolved_reference', field, message: `${shown} is not a playbook input, step output or built-in variable${fix ? ` (did you mean '${fix}'?)` : ''}` };
    if (fix) issue.suggestedFix = correctedText(ref, text, fix, ref.path);
    return { issue };
  }

  private resolveStep(current: FlatStep, step: FlatStep, ref: Reference, field: string, shown: string, text?: string): { spec?: FieldSpec; producer?: FlatStep; issue?: StepIssue } {
    if (step === current) return { issue: { code: 'unresolved_reference', field, message: `${shown}: a step cannot read its own output` } };
    if (step.isGroup) {
      const children = this.steps.filter((s) => s.group === step.name).map((s) => s.outputKey);
      // `{group.child.x}` meant `{child.x}`; otherwise the first sub-step, path kept.
      const named = ref.path[0]?.kind === 'prop' ? nearestName(ref.path[0].name, children) : undefined;
      const fix = named ?? children[0];
      const issue: StepIssue = { code: 'unresolved_reference', field, message: `${shown}: parallel step '${step.name}' has no output of its own; reference one of its sub-steps (${children.join(', ')})` };
      if (fix) issue.suggestedFix = correctedText(ref, text, fix, named ? ref.path.slice(1) : ref.path);
      return { issue };
    }
    if (step.unit === current.unit && step.group !== undefined) {
      return { issue: { code: 'unresolved_reference', field, message: `${shown}: '${step.name}' runs in parallel with '${current.name}', so its output is not available` } };
    }
    if (step.order > current.order) {
      return { issue: { code: 'unresolved_reference', field, message: `${shown}: step '${step.name}' comes after '${current.name}'; a step can only use outputs of earlier steps` } };
    }
    const r = resolvePath(this.outputSpec(step), ref.path);
    if (r.ok) return { spec: r.spec, producer: step };
    const issue: StepIssue = {
      code: 'unresolved_reference',
      field,
      message: `${shown}: ${r.reason}${r.available.length > 0 ? ` in the output of '${step.name}' (available: ${r.available.join(', ')})` : ''}`,
    };
    const failing = ref.path[r.index];
    const name = failing?.kind === 'prop' ? nearestName(failing.name, r.available) : undefined;
    if (r.fixPath) {
      issue.suggestedFix = correctedText(ref, text, ref.root, r.fixPath);
    } else if (name) {
      const path = ref.path.map((seg, k): PathSegment => (k === r.index ? { kind: 'prop', name } : seg));
      issue.suggestedFix = correctedText(ref, text, ref.root, path);
    }
    return { issue };
  }
}

/**
 * The corrected value of the field that holds `ref`: its text with the
 * reference rewritten to `root` + `path` (form kept), so a client can set the
 * field to it as it is. Without the text (a bare `preview_from`), the
 * reference alone.
 */
export function correctedText(ref: Reference, text: string | undefined, root: string, path: readonly PathSegment[]): string {
  const expr = formatPath(root, path);
  if (text === undefined || ref.end <= ref.start) return path.length === 0 && ref.start === ref.end ? root : `{${expr}}`;
  const written = ref.form === 'double' ? `{{${expr}}}` : `{${expr}}`;
  return text.slice(0, ref.start) + written + text.slice(ref.end);
}

/** References of a template string, or an issue when a reference is malformed. */
export function referencesIn(text: string, field: string): { refs: Reference[]; issue?: StepIssue } {
  try {
    return { refs: extractReferences(text) };
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    return { refs: [], issue: { code: 'unresolved_reference', field, message: `malformed reference: ${e.message}` } };
  }
}
