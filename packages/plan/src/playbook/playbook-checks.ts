/**
 * Document-level rules of a playbook that a schema cannot express: unique
 * step names and output keys, input declarations, execution mode vs step
 * types, monitor configuration, trigger patterns and output sections.
 */
import { isBuiltin } from '@af/expr';
import { nearestName } from '../issues/nearest-name.js';
import type { PlanIssue } from '../issues/plan-issue.js';
import { inputValueMatches } from '../inputs/run-inputs.js';
import type { Playbook } from './playbook.schema.js';
import type { FlatStep } from './playbook-steps.js';

function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Issues of the document as a whole (fields are document paths). */
export function playbookIssues(doc: Playbook, steps: readonly FlatStep[]): { errors: PlanIssue[]; warnings: PlanIssue[] } {
  const errors: PlanIssue[] = [];
  const warnings: PlanIssue[] = [];

  const names = new Map<string, FlatStep>();
  const keys = new Map<string, FlatStep>();
  for (const s of steps) {
    const prior = names.get(s.name);
    if (prior) errors.push({ code: 'duplicate_step', field: `${s.source}.name`, step: s.name, message: `step name '${s.name}' is already used by ${prior.source}` });
    else names.set(s.name, s);
    if (s.isGroup) continue;
    const priorKey = keys.get(s.outputKey);
    if (priorKey) {
      errors.push({ code: 'duplicate_output_key', field: `${s.source}.output_key`, step: s.name, message: `output_key '${s.outputKey}' is already used by step '${priorKey.name}'` });
    } else keys.set(s.outputKey, s);
  }
  // An output_key equal to another step's name would make `{name}` ambiguous.
  for (const s of steps) {
    const other = names.get(s.outputKey);
    if (!s.isGroup && other && other !== s) {
      errors.push({ code: 'duplicate_output_key', field: `${s.source}.output_key`, step: s.name, message: `output_key '${s.outputKey}' is the name of another step ('${other.source}')` });
    }
  }

  const inputNames = new Set<string>();
  doc.inputs.forEach((input, i) => {
    const f = `inputs[${i}]`;
    if (inputNames.has(input.name)) errors.push({ code: 'duplicate_input', field: `${f}.name`, message: `input '${input.name}' is declared twice` });
    inputNames.add(input.name);
    if (names.has(input.name) || keys.has(input.name)) {
      errors.push({ code: 'invalid_field', field: `${f}.name`, message: `input '${input.name}' has the same name as a step or output_key, so '{${input.name}}' would be ambiguous` });
    }
    if (isBuiltin(input.name)) errors.push({ code: 'invalid_field', field: `${f}.name`, message: `'${input.name}' is a built-in runtime variable and cannot be an input name` });
    if (input.default !== undefined && !inputValueMatches(input.type, input.default)) {
      errors.push({ code: 'invalid_field', field: `${f}.default`, message: `default of '${input.name}' does not match its type ${input.type}` });
    }
    if (input.enum !== undefined) {
      // A list's enum constrains its elements, which may be strings or numbers.
      const valueType = input.type === 'list' ? undefined : input.type;
      input.enum.forEach((v, k) => {
        if (valueType !== undefined && !inputValueMatches(valueType, v)) {
          errors.push({ code: 'invalid_field', field: `${f}.enum[${k}]`, message: `enum value ${JSON.stringify(v)} of '${input.name}' is not a ${input.type}` });
        }
      });
      const outside = input.default === undefined ? [] : (Array.isArray(input.default) ? input.default : [input.default]).filter((v) => !input.enum!.includes(v as string | number));
      if (outside.length > 0) errors.push({ code: 'invalid_field', field: `${f}.default`, message: `default of '${input.name}' is not one of its enum values (${input.enum.join(', ')})` });
    }
    if (input.required && input.default !== undefined) {
      warnings.push({ code: 'unused_default', field: `${f}.default`, message: `'${input.name}' is required, so its default is never used` });
    }
  });

  if (doc.execution_mode === 'deterministic') {
    for (const s of steps) {
      if (s.stepType === 'llm_task') {
        errors.push({ code: 'invalid_field', field: `${s.source}.step_type`, step: s.name, message: `a deterministic playbook makes no LLM calls, but step '${s.name}' is an llm_task (use execution_mode: hybrid)` });
      }
    }
  }
  if (doc.run_context === 'monitor' && !doc.monitor_config) {
    errors.push({ code: 'missing_required', field: 'monitor_config', message: 'run_context: monitor needs a monitor_config (at least an interval)' });
  }
  if (doc.monitor_config && doc.run_context !== 'monitor') {
    errors.push({ code: 'invalid_field', field: 'monitor_config', message: `monitor_config only applies to run_context: monitor (this playbook is ${doc.run_context})` });
  }
  const tz = doc.monitor_config?.active_hours?.timezone;
  if (tz !== undefined && !validTimeZone(tz)) {
    errors.push({ code: 'invalid_field', field: 'monitor_config.active_hours.timezone', message: `unknown time zone '${tz}' (an IANA name such as America/New_York or UTC)` });
  }
  doc.triggers.forEach((t, i) => {
    if (t.type !== 'regex') return;
    try {
      new RegExp(t.pattern, 'i');
    } catch (e) {
      errors.push({ code: 'invalid_field', field: `triggers[${i}].pattern`, message: `invalid regular expression: ${(e as Error).message}` });
    }
  });
  doc.output?.sections?.forEach((section, i) => {
    if (keys.has(section.source)) return;
    const fix = nearestName(section.source, keys.keys());
    const issue: PlanIssue = { code: 'nonexistent_step', field: `output.sections[${i}].source`, message: `output section '${section.title}' reads '${section.source}', which is not a step output_key${fix ? ` (did you mean '${fix}'?)` : ''}` };
    if (fix) issue.suggestedFix = fix;
    errors.push(issue);
  });
  return { errors, warnings };
}
