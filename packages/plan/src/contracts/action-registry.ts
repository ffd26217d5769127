/**
 * The Action I/O Registry: every built-in action contract plus plugin
 * contracts registered at run time (seed §12 `register_with_io_registry`).
 * One registry per planner process; `defaultActionRegistry()` gives a fresh one.
 */
import { z } from 'zod';
import { CORE_ACTIONS, LLM_ACTIONS } from './builtin-actions-core.data.js';
import { JOURNAL_ACTIONS, MONITOR_ACTIONS, TEAM_ACTIONS } from './builtin-actions-monitor.data.js';
import { FILE_ACTIONS, NOTIFICATION_ACTIONS, TASK_ACTIONS } from './builtin-actions-productivity.data.js';
import type { ActionContract } from './action-contract.js';
import type { FieldSpec } from '../types/io-type.js';

/** Every built-in contract of seed §5, in the seed's order. */
export const BUILTIN_ACTIONS: readonly ActionContract[] = [
  ...CORE_ACTIONS,
  ...MONITOR_ACTIONS,
  ...JOURNAL_ACTIONS,
  ...TEAM_ACTIONS,
  ...NOTIFICATION_ACTIONS,
  ...TASK_ACTIONS,
  ...FILE_ACTIONS,
  ...LLM_ACTIONS,
];

const NAME = /^[a-z][a-z0-9_]*$/;

const FieldInput: z.ZodType<string | { type: string; required?: boolean; description?: string; default?: unknown; fields?: unknown }> = z.union([
  z.string().min(1),
  z.looseObject({
    type: z.string().min(1),
    required: z.boolean().optional(),
    description: z.string().optional(),
    default: z.unknown().optional(),
    fields: z.unknown().optional(),
  }),
]);

/** A plugin's tool contract (seed §12 `ToolIOContract`), as plugins send it. */
export const ToolIOContractSchema = z.object({
  name: z.string().regex(NAME, 'must be snake_case'),
  description: z.string().default(''),
  inputs: z.record(z.string(), FieldInput).default({}),
  params: z.record(z.string(), FieldInput).default({}),
  outputs: z.record(z.string(), FieldInput).default({}),
  requires: z.string().nullish(),
  /** Not in the seed: lets a plugin declare a tool that only reads (it is ordered as a read). */
  read_only: z.boolean().optional(),
});
export type ToolIOContract = z.input<typeof ToolIOContractSchema>;

/** Plugin names as connector-runtime's plugin registry accepts them (`slack-webhook`, `orchestrator.tools.web`). */
const PLUGIN_NAME = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/;

export const PluginRegistrationSchema = z.object({
  plugin_name: z.string().regex(PLUGIN_NAME, 'must be lower-case letters and digits joined by ".", "_" or "-"'),
  plugin_version: z.string().optional(),
  tool_contracts: z.array(ToolIOContractSchema),
});
export type PluginRegistration = z.input<typeof PluginRegistrationSchema>;

function toFieldSpec(value: z.infer<typeof FieldInput>, requiredByDefault: boolean): FieldSpec {
  if (typeof value === 'string') return requiredByDefault ? { type: value, required: true } : { type: value };
  const spec: FieldSpec = { type: value.type };
  const required = value.required ?? (requiredByDefault && value.default === undefined);
  if (required) spec.required = true;
  if (value.description) spec.description = value.description;
  if (value.default !== undefined) spec.default = value.default;
  return spec;
}

function mapFields(map: Record<string, z.infer<typeof FieldInput>>, requiredByDefault: boolean): Record<string, FieldSpec> {
  const out: Record<string, FieldSpec> = {};
  for (const [k, v] of Object.entries(map)) out[k] = toFieldSpec(v, requiredByDefault);
  return out;
}

export class ActionIORegistry {
  private readonly byName = new Map<string, ActionContract>();

  constructor(contracts: Iterable<ActionContract> = BUILTIN_ACTIONS) {
    for (const c of contracts) this.byName.set(c.name, c);
  }

  get(name: string): ActionContract | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Contracts in registration order (built-ins first), optionally of one category. */
  list(category?: string): ActionContract[] {
    const all = [...this.byName.values()];
    return category ? all.filter((c) => c.category === category) : all;
  }

  /** Adds a contract; a name clash is an error unless `replace` (a plugin cannot shadow a built-in silently). */
  register(contract: ActionContract, opts: { replace?: boolean } = {}): void {
    if (!NAME.test(contract.name)) throw new Error(`action name '${contract.name}' must be snake_case`);
    if (this.byName.has(contract.name) && !opts.replace) {
      throw new Error(`action '${contract.name}' is already registered (${this.byName.get(contract.name)!.category})`);
    }
    this.byName.set(contract.name, contract);
  }

  /**
   * Registers every tool of a plugin under category `plugin:<name>` (seed §12).
   * Plugin inputs are required unless they say otherwise (the seed calls them
   * "Required inputs with types"); params are optional. Plugin tools are treated
   * as side-effecting unless `read_only: true`. Returns the registered names.
   */
  registerPlugin(registration: PluginRegistration, opts: { replace?: boolean } = {}): string[] {
    const parsed = PluginRegistrationSchema.safeParse(registration);
    if (!parsed.success) {
      const first = parsed.error.issues[0]!;
      throw new Error(`invalid plugin registration at ${first.path.join('.') || '(root)'}: ${first.message}`);
    }
    const { plugin_name, tool_contracts } = parsed.data;
    const names: string[] = [];
    for (const t of tool_contracts) {
      const contract: ActionContract = {
        name: t.name,
        category: `plugin:${plugin_name}`,
        stepType: 'tool',
        inputs: mapFields(t.inputs, true),
        params: mapFields(t.params, false),
        outputs: mapFields(t.outputs, false),
        sideEffect: t.read_only !== true,
      };
      if (t.description) contract.description = t.description;
      if (t.requires) contract.requires = t.requires;
      this.register(contract, opts);
      names.push(t.name);
    }
    return names;
  }

  /** Removes every tool a plugin registered (deregistration / disable). */
  unregisterPlugin(pluginName: string): number {
    let n = 0;
    for (const [name, c] of this.byName) {
      if (c.category === `plugin:${pluginName}`) {
        this.byName.delete(name);
        n++;
      }
    }
    return n;
  }
}

/** A fresh registry holding the built-in contracts. */
export function defaultActionRegistry(): ActionIORegistry {
  return new ActionIORegistry();
}
