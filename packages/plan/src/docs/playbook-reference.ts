/**
 * docs/playbooks.md, generated: a hand-written template (scripts/docs/
 * playbooks.template.md) whose `{{PLACEHOLDERS}}` are filled from the code
 * that decides what a playbook may say — the playbook schema's keys and
 * enums, and the Action I/O registry with each action's owner and whether a
 * default deployment runs it. `pnpm docs:gen` writes the file; a unit test
 * fails when the committed file differs, so the reference cannot drift.
 * Pure: the caller reads and writes the files.
 */
import { parse as parseYaml } from 'yaml';
import { IN_PROCESS_TOOL_ACTIONS, actionOwner, CATEGORY_OWNERS } from '../contracts/action-availability.js';
import type { ActionContract } from '../contracts/action-contract.js';
import { defaultActionRegistry } from '../contracts/action-registry.js';
import type { FieldSpec } from '../types/io-type.js';
import {
  FILTER_OPERATORS,
  INPUT_TYPES,
  MONITOR_INTERVALS,
  OPERATION_TYPES,
  PlaybookInputSchema,
  PlaybookSchema,
  STEP_TYPES,
  StepSchema,
} from '../playbook/playbook.schema.js';
import { PLAYBOOK_KEY_DOCS, STEP_KEY_DOCS, INPUT_KEY_DOCS, CATEGORY_DOCS } from './playbook-reference.keys.js';

/**
 * Built-in actions a deployed owner does not serve yet, by service (`*`: none
 * of its built-ins). Empty today: every owner serves all of its built-ins
 * (connector-runtime its `search_web` and `crawl_url` beside plugin tools). The examples e2e test compares this page
 * against a running stack's `GET /api/agent-factory/actions`, so a service
 * that starts (or stops) serving an action shows up there first.
 */
export const NOT_SERVED_YET: Readonly<Record<string, readonly string[]>> = {};

const servedBy = (owner: string, action: string) => !(NOT_SERVED_YET[owner] ?? []).some((a) => a === '*' || a === action);

/** The service names of an `ACTION_SERVICES` value (`name=host:port,…`). */
export function actionServiceNames(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => entry.split('=')[0]!.trim());
}

/** `ACTION_SERVICES` of a deployment's ConfigMap (k8s/base/config.yaml) as service names. */
export function actionServicesOfConfigMap(yamlText: string): string[] {
  const doc = parseYaml(yamlText) as { data?: Record<string, unknown> } | null;
  const value = doc?.data?.ACTION_SERVICES;
  if (typeof value !== 'string') throw new Error('the ConfigMap has no data.ACTION_SERVICES');
  return actionServiceNames(value);
}

/** Whether a deployment with these ActionService services runs `contract`, in words, and as a flag. */
export interface Availability {
  runs: boolean;
  /** Markdown for the tables. */
  text: string;
}

export function availabilityOf(contract: ActionContract, actionServices: readonly string[]): Availability {
  const registry = defaultActionRegistry();
  const owner = actionOwner(contract.name, registry) ?? 'unknown';
  if (IN_PROCESS_TOOL_ACTIONS.includes(contract.name)) return { runs: true, text: 'yes — the orchestrator runs it itself' };
  if (contract.stepType === 'llm_task') return { runs: true, text: 'yes, once a model is configured (`LLM_PROVIDER`); without one a run is refused (409 `no_model_configured`)' };
  if (actionServices.includes(owner) && servedBy(owner, contract.name)) return { runs: true, text: `yes — served by ${owner}` };
  const why =
    owner === 'orchestrator'
      ? `the orchestrator owns it but does not run it yet (it runs ${IN_PROCESS_TOOL_ACTIONS.slice(0, -1).join(', ')} and ${IN_PROCESS_TOOL_ACTIONS.at(-1)} itself)`
      : actionServices.includes(owner)
        ? NOT_SERVED_YET[owner]?.includes('*')
          ? `${owner} serves only plugin tools so far`
          : `${owner} does not serve it yet`
        : `owned by ${owner}; refused before a run starts when that service is not deployed`;
  return { runs: false, text: `no (\`action_unavailable\`): ${why}` };
}

const code = (s: string) => `\`${s}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function typeText(spec: FieldSpec): string {
  const fields = spec.fields ? `{${Object.keys(spec.fields).join(', ')}}` : '';
  return code(`${spec.type}${fields}`);
}

function fieldTable(title: string, fields: Record<string, FieldSpec>, withRequired: boolean): string[] {
  const names = Object.keys(fields);
  if (names.length === 0) return [];
  const head = withRequired ? '| name | type | required | default | description |\n|---|---|---|---|---|' : '| name | type | description |\n|---|---|---|';
  const rows = names.map((name) => {
    const f = fields[name]!;
    const desc = cell(f.description ?? '');
    if (!withRequired) return `| ${code(name)} | ${typeText(f)} | ${desc} |`;
    const def = f.default === undefined ? '' : code(JSON.stringify(f.default));
    return `| ${code(name)} | ${typeText(f)} | ${f.required ? 'yes' : ''} | ${def} | ${desc} |`;
  });
  return [`${title}:`, '', head, ...rows, ''];
}

function notes(c: ActionContract): string[] {
  const out: string[] = [];
  if (c.dynamicInputs) out.push("inputs are the connector endpoint's `parameters` (see [connectors](connectors.md))");
  if (c.openInputs) out.push('inputs are free-form: wire whatever context the step needs');
  if (c.dynamicOutputs) out.push(c.stepType === 'llm_task' ? "outputs are the step's `output_schema` fields" : "outputs also include the endpoint's `output_schema` fields");
  if (c.outputType === 'record_set') out.push('the output is a record set: records under `results`, read them as `{step.results}`');
  if (c.requires) out.push(`needs ${code(c.requires)}`);
  if (c.watermarkType) out.push(`watermark: ${c.watermarkType}`);
  return out;
}

function actionSection(c: ActionContract, actionServices: readonly string[]): string[] {
  const owner = actionOwner(c.name, defaultActionRegistry()) ?? 'unknown';
  const lines = [`#### ${code(c.name)}`, ''];
  if (c.description) lines.push(`${c.description}.`, '');
  lines.push(
    `- step_type: ${code(c.stepType)}; owner: ${owner}; side effect: ${c.sideEffect ? 'yes (a barrier, skipped in dry runs)' : 'no'}`,
    `- runs in a default deployment: ${availabilityOf(c, actionServices).text}`,
  );
  for (const n of notes(c)) lines.push(`- ${n}`);
  lines.push('');
  lines.push(...fieldTable('Inputs', c.inputs, true), ...fieldTable('Params', c.params, true), ...fieldTable('Outputs', c.outputs, false));
  return lines;
}

function summaryTable(contracts: readonly ActionContract[], actionServices: readonly string[]): string {
  const rows = contracts.map((c) => {
    const a = availabilityOf(c, actionServices);
    const owner = actionOwner(c.name, defaultActionRegistry()) ?? 'unknown';
    return `| [${code(c.name)}](#${c.name}) | ${code(c.stepType)} | ${c.category} | ${owner} | ${a.runs ? 'yes' : 'no'} | ${c.sideEffect ? 'yes' : ''} |`;
  });
  return ['| action | step_type | category | owner | runs by default | side effect |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

function detail(contracts: readonly ActionContract[], actionServices: readonly string[]): string {
  const categories = [...new Set(contracts.map((c) => c.category))];
  const lines: string[] = [];
  for (const category of categories) {
    const doc = CATEGORY_DOCS[category];
    if (doc === undefined) throw new Error(`describe action category '${category}' in CATEGORY_DOCS (playbook-reference.keys.ts)`);
    lines.push(`### ${category} — owned by ${CATEGORY_OWNERS[category] ?? 'unknown'}`, '', doc, '');
    for (const c of contracts.filter((x) => x.category === category)) lines.push(...actionSection(c, actionServices));
  }
  return lines.join('\n').trimEnd();
}

function keyTable(keys: readonly string[], docs: Record<string, string>, where: string): string {
  const rows = keys.map((k) => {
    const d = docs[k];
    if (d === undefined) throw new Error(`describe the ${where} key '${k}' in playbook-reference.keys.ts`);
    return `| ${code(k)} | ${cell(d)} |`;
  });
  return ['| key | meaning |', '|---|---|', ...rows].join('\n');
}

const list = (values: readonly string[]) => values.map(code).join(', ');

export interface RenderOptions {
  template: string;
  /** The service names of the default deployment's ACTION_SERVICES. */
  actionServices: readonly string[];
}

/** The page: every `{{NAME}}` of the template replaced; an unknown placeholder is an error. */
export function renderPlaybookReference(opts: RenderOptions): string {
  const contracts = defaultActionRegistry().list();
  const values: Record<string, string> = {
    PLAYBOOK_KEYS: keyTable(Object.keys(PlaybookSchema.shape), PLAYBOOK_KEY_DOCS, 'playbook'),
    STEP_KEYS: keyTable(Object.keys(StepSchema.shape), STEP_KEY_DOCS, 'step'),
    INPUT_KEYS: keyTable(Object.keys(PlaybookInputSchema.shape), INPUT_KEY_DOCS, 'input'),
    STEP_TYPES: list(STEP_TYPES),
    INPUT_TYPES: list(INPUT_TYPES),
    MONITOR_INTERVALS: list(MONITOR_INTERVALS),
    OPERATION_TYPES: list(OPERATION_TYPES),
    FILTER_OPERATORS: list(FILTER_OPERATORS),
    IN_PROCESS_ACTIONS: list(IN_PROCESS_TOOL_ACTIONS),
    DEFAULT_ACTION_SERVICES: opts.actionServices.length ? list(opts.actionServices) : '(none)',
    ACTION_COUNT: String(contracts.length),
    ACTIONS_SUMMARY: summaryTable(contracts, opts.actionServices),
    ACTIONS_DETAIL: detail(contracts, opts.actionServices),
  };
  return opts.template.replace(/\{\{([A-Z_]+)\}\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`unknown placeholder {{${name}}} in the template`);
    return v;
  });
}
