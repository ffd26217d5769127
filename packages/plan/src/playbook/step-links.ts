/**
 * Step-link validation of one playbook step (seed §5 "Step Linking
 * Validation"): required inputs wired (rule 1), type compatibility with the
 * seed's coercions (rule 2), reference existence and order (rule 3),
 * connector binding (rule 5) and the llm_task output_schema (rule 6).
 * Cycles (rule 4) cannot arise from backward-only references; the structural
 * validator still checks the compiled graph.
 */
import { collectReferences, ExprError, type Reference } from '@af/expr';
import type { FieldSpec } from '../types/io-type.js';
import { compatibility, literalType } from '../types/io-type.js';
import { conditionError } from '../graph/condition-check.js';
import { nearestName } from '../issues/nearest-name.js';
import type { StepIssue } from '../issues/plan-issue.js';
import { FILTER_OPERATORS } from './playbook.schema.js';
import type { FlatStep } from './playbook-steps.js';
import { referencesIn, type ReferenceResolver } from './step-references.js';
import { connectorTarget, endpointOf, isKnownFieldType } from './step-output.js';
import { parseFieldPath } from './yaml-source.js';

export interface StepLinks {
  errors: StepIssue[];
  warnings: StepIssue[];
  /** Steps whose output this step reads (its data dependencies), in document order. */
  producers: FlatStep[];
}

interface Slots {
  inputs: Record<string, FieldSpec>;
  params: Record<string, FieldSpec>;
  /** Any input name is accepted. */
  openInputs: boolean;
  openParams: boolean;
}

function slotsOf(flat: FlatStep, resolver: ReferenceResolver, links: StepLinks): Slots {
  const c = flat.contract;
  if (!c) return { inputs: {}, params: {}, openInputs: true, openParams: true };
  const slots: Slots = { inputs: c.inputs, params: c.params, openInputs: c.openInputs === true, openParams: c.stepType === 'llm_task' };
  if (c.name === 'call_connector') {
    slots.params = {};
    const endpoint = endpointOf(flat, resolver.connectors);
    if (endpoint) slots.inputs = endpoint.inputs;
    else slots.openInputs = true;
    checkConnectorBinding(flat, resolver, links);
  }
  return slots;
}

function checkConnectorBinding(flat: FlatStep, resolver: ReferenceResolver, links: StepLinks): void {
  const s = flat.step;
  for (const key of ['connector', 'endpoint'] as const) {
    if ((s[key] ?? s.params?.[key]) === undefined) {
      links.errors.push({ code: 'missing_required', field: key, message: `call_connector needs a ${key}` });
    }
  }
  checkConnectorTarget(flat, resolver, links);
}

/**
 * The connector and endpoint a step names exist for the caller; when the
 * step calls through an agent profile (`params.agent_profile_id`) and
 * bindings are known, the connector is bound to it and the endpoint allowed.
 */
export function checkConnectorTarget(flat: FlatStep, resolver: ReferenceResolver, links: StepLinks): void {
  const s = flat.step;
  const connectors = resolver.connectors;
  const { connector, endpoint } = connectorTarget(flat);
  if (!connectors || connector === undefined) return;
  const viaInputs = flat.contract?.name === 'detect_new_data';
  const field = viaInputs ? 'inputs.connector' : s.connector !== undefined ? 'connector' : 'params.connector';
  const endpointField = viaInputs ? 'inputs.endpoint' : s.endpoint !== undefined ? 'endpoint' : 'params.endpoint';
  const known = connectors.connector(connector);
  if (!known) {
    const ids = [...connectors.ids()];
    const fix = nearestName(connector, ids);
    const issue: StepIssue = {
      code: 'unknown_connector',
      field,
      message: `step '${flat.name}' calls connector '${connector}', which does not exist for you${fix ? ` (did you mean '${fix}'?)` : ids.length ? ` (your connectors: ${ids.join(', ')})` : ' (you have no connectors yet)'}`,
    };
    if (fix) issue.suggestedFix = fix;
    links.errors.push(issue);
    return;
  }
  if (endpoint !== undefined && !Object.prototype.hasOwnProperty.call(known.endpoints, endpoint)) {
    const names = Object.keys(known.endpoints);
    const fix = nearestName(endpoint, names);
    const issue: StepIssue = {
      code: 'unknown_endpoint',
      field: endpointField,
      message: `step '${flat.name}': connector '${connector}' has no endpoint '${endpoint}' (endpoints: ${names.join(', ')})`,
    };
    if (fix) issue.suggestedFix = fix;
    links.errors.push(issue);
    return;
  }
  const profile = s.params?.agent_profile_id;
  if (typeof profile !== 'string' || profile === '' || profile.includes('{') || !connectors.binding) return;
  const binding = connectors.binding(profile, connector);
  if (!binding) {
    links.errors.push({ code: 'connector_not_bound', field, message: `step '${flat.name}' calls connector '${connector}' through agent profile '${profile}', which has no binding for it (bind it first)` });
  } else if (binding.status === 'disabled') {
    links.errors.push({ code: 'binding_disabled', field, message: `step '${flat.name}': the binding of connector '${connector}' to agent profile '${profile}' is disabled` });
  } else if (endpoint !== undefined && binding.allowedEndpoints.length > 0 && !binding.allowedEndpoints.includes(endpoint)) {
    const issue: StepIssue = {
      code: 'endpoint_not_allowed',
      field: endpointField,
      message: `step '${flat.name}': agent profile '${profile}' may call only ${binding.allowedEndpoints.join(', ')} of connector '${connector}', not '${endpoint}'`,
    };
    const fix = nearestName(endpoint, binding.allowedEndpoints);
    if (fix) issue.suggestedFix = fix;
    links.errors.push(issue);
  } else if (binding.status === 'auth_failed') {
    links.warnings.push({ code: 'binding_auth_failed', field, message: `step '${flat.name}': the binding of connector '${connector}' to agent profile '${profile}' last failed to authenticate; calls through it fail until its credentials are fixed` });
  }
}

/** Resolves every reference in `value`; returns the value's type when it is one whole reference or a literal. */
function valueType(flat: FlatStep, value: unknown, field: string, resolver: ReferenceResolver, links: StepLinks): string | undefined {
  if (typeof value === 'string') {
    const { refs, issue } = referencesIn(value, field);
    if (issue) {
      links.errors.push(issue);
      return undefined;
    }
    let whole: string | undefined;
    for (const ref of refs) {
      const spec = track(flat, ref, field, resolver, links, value);
      if (refs.length === 1 && ref.start === 0 && ref.end === value.length) whole = spec?.type;
    }
    // A whole-value reference keeps its type; embedded references make a string.
    if (refs.length === 1 && refs[0]!.start === 0 && refs[0]!.end === value.length) return whole;
    return 'string';
  }
  let located: Array<Reference & { location: string }> = [];
  try {
    located = collectReferences(value);
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    links.errors.push({ code: 'unresolved_reference', field, message: `malformed reference: ${e.message}` });
  }
  for (const ref of located) track(flat, ref, ref.location ? `${field}.${ref.location}` : field, resolver, links, stringAt(value, ref.location));
  return located.length > 0 ? undefined : literalType(value);
}

/** The string at `location` (as collectReferences writes it) inside `value`. */
function stringAt(value: unknown, location: string): string | undefined {
  let v: unknown = value;
  for (const key of parseFieldPath(location)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[key];
  }
  return typeof v === 'string' ? v : undefined;
}

function track(flat: FlatStep, ref: Reference, field: string, resolver: ReferenceResolver, links: StepLinks, text?: string): FieldSpec | undefined {
  const r = resolver.resolve(flat, ref, field, text);
  if (r.issue) links.errors.push(r.issue);
  if (r.producer && !links.producers.includes(r.producer)) links.producers.push(r.producer);
  return r.spec;
}

function checkWiring(kind: 'inputs' | 'params', name: string, value: unknown, slot: FieldSpec | undefined, flat: FlatStep, resolver: ReferenceResolver, links: StepLinks): void {
  const field = `${kind}.${name}`;
  const type = valueType(flat, value, field, resolver, links);
  if (!slot || type === undefined) return;
  const compat = compatibility(type, slot.type);
  if (compat.kind === 'mismatch') {
    links.errors.push({ code: 'type_mismatch', field, message: `'${name}' expects ${slot.type} but is wired to a ${type}` });
  } else if (compat.kind === 'coerce') {
    const w: StepIssue = { code: 'loose_type_coercion', field, message: `'${name}' expects ${slot.type}: ${compat.reason}` };
    if (compat.suggestion === 'results' && typeof value === 'string') w.suggestedFix = value.replace(/\}+$/, (m) => `.results${m}`);
    links.warnings.push(w);
  }
}

function unknownSlot(kind: 'inputs' | 'params', name: string, slots: Slots, links: StepLinks, action: string): void {
  const known = [...Object.keys(slots.inputs), ...Object.keys(slots.params)];
  const fix = nearestName(name, known);
  const issue: StepIssue = {
    code: kind === 'inputs' ? 'unknown_input' : 'unknown_param',
    field: `${kind}.${name}`,
    message: `'${action}' has no ${kind === 'inputs' ? 'input' : 'param'} '${name}'${known.length ? ` (known: ${known.join(', ')})` : ''}`,
  };
  if (fix) issue.suggestedFix = fix;
  links.errors.push(issue);
}

function checkOperations(flat: FlatStep, links: StepLinks): void {
  flat.step.operations?.forEach((op, k) => {
    const f = `operations[${k}]`;
    const need = (key: 'field' | 'operator' | 'value' | 'direction'): void => {
      if (op[key] === undefined) links.errors.push({ code: 'missing_required', field: `${f}.${key}`, message: `a ${op.type} operation needs '${key}'` });
    };
    if (op.type === 'filter') {
      need('field');
      need('operator');
      need('value');
      if (op.operator !== undefined && !(FILTER_OPERATORS as readonly string[]).includes(op.operator)) {
        const fix = nearestName(op.operator, FILTER_OPERATORS);
        const issue: StepIssue = { code: 'invalid_field', field: `${f}.operator`, message: `unknown filter operator '${op.operator}' (one of ${FILTER_OPERATORS.join(', ')})` };
        if (fix) issue.suggestedFix = fix;
        links.errors.push(issue);
      }
    } else if (op.type === 'sort' || op.type === 'aggregate') {
      need('field');
    } else if (op.type === 'limit') {
      if (typeof op.value !== 'number' || !Number.isInteger(op.value) || op.value < 0) {
        links.errors.push({ code: 'invalid_field', field: `${f}.value`, message: 'a limit operation needs a non-negative integer value' });
      }
    }
  });
}

/** Validates the wiring of one step and collects its data dependencies. */
export function validateStepLinks(flat: FlatStep, resolver: ReferenceResolver): StepLinks {
  const links: StepLinks = { errors: [...flat.errors], warnings: [], producers: [] };
  const s = flat.step;
  if (!flat.isGroup && flat.stepType !== 'approval') {
    const slots = slotsOf(flat, resolver, links);
    const action = s.action ?? flat.stepType;
    for (const [name, value] of Object.entries(s.inputs ?? {})) {
      const slot = slots.inputs[name] ?? slots.params[name];
      if (!slot && !slots.openInputs && flat.contract) unknownSlot('inputs', name, slots, links, action);
      checkWiring('inputs', name, value, slot, flat, resolver, links);
    }
    for (const [name, value] of Object.entries(s.params ?? {})) {
      // `agent_profile_id`: the call goes through that profile's binding (checked in checkConnectorTarget).
      if (flat.contract?.name === 'call_connector' && (name === 'connector' || name === 'endpoint' || name === 'agent_profile_id')) continue;
      const slot = slots.params[name];
      if (!slot && !slots.openParams && flat.contract) unknownSlot('params', name, slots, links, action);
      checkWiring('params', name, value, slot, flat, resolver, links);
    }
    // Rule 1: every required input wired (a literal, a variable, an upstream output) or defaulted.
    for (const [name, slot] of Object.entries(slots.inputs)) {
      if (!slot.required || slot.default !== undefined) continue;
      const v = s.inputs?.[name] ?? s.params?.[name];
      if (v === undefined || v === null || v === '') {
        links.errors.push({ code: 'missing_required', field: `inputs.${name}`, message: `required input '${name}'${slot.type ? ` (${slot.type})` : ''} of '${action}' is not wired` });
      }
    }
    if (flat.stepType === 'llm_task') {
      if (!s.output_schema) {
        links.errors.push({ code: 'missing_required', field: 'output_schema', message: 'an llm_task step must declare output_schema so downstream steps can wire to its outputs' });
      } else {
        if (s.output_schema.type === 'scalar' && s.output_schema.fields.length !== 1) {
          links.errors.push({ code: 'invalid_field', field: 'output_schema.fields', message: 'a scalar output_schema declares exactly one field' });
        }
        s.output_schema.fields.forEach((f, k) => {
          if (!isKnownFieldType(f.type)) {
            links.errors.push({ code: 'invalid_field', field: `output_schema.fields[${k}].type`, message: `unknown field type '${f.type}' (string, number, integer, date, boolean, object, a record type or T[])` });
          }
        });
      }
    }
    if (flat.contract?.name === 'detect_new_data') checkConnectorTarget(flat, resolver, links);
    checkOperations(flat, links);
  }
  if (flat.stepType === 'approval') {
    if (s.prompt !== undefined) valueType(flat, s.prompt, 'prompt', resolver, links);
    if (s.preview_from !== undefined) {
      const ref: Reference = { raw: s.preview_from, root: s.preview_from, path: [], start: 0, end: 0, form: 'single' };
      const r = resolver.resolve(flat, ref, 'preview_from');
      if (r.issue) {
        links.errors.push(r.issue.code === 'unresolved_reference' && !resolver.stepFor(s.preview_from) ? { ...r.issue, code: 'nonexistent_step', message: `preview_from '${s.preview_from}' is not the output_key of an earlier step` } : r.issue);
      } else if (!r.producer) {
        links.errors.push({ code: 'nonexistent_step', field: 'preview_from', message: `preview_from '${s.preview_from}' must name a step's output_key, not an input or built-in` });
      } else if (!links.producers.includes(r.producer)) {
        links.producers.push(r.producer);
      }
    }
  }
  if (s.condition !== undefined) {
    valueType(flat, s.condition, 'condition', resolver, links);
    const err = conditionError(s.condition, 'playbook');
    if (err) links.errors.push({ code: 'invalid_condition', field: 'condition', message: `condition: ${err}` });
  }
  links.producers.sort((a, b) => a.order - b.order);
  return links;
}
