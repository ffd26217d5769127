/**
 * A plugin tool as connector-runtime lists it over ActionService (its JSON
 * Schemas) → the Action I/O Registry's form (seed §12 `ToolIOContract`), so a
 * playbook step can name the tool and its links are checked like a built-in's.
 */
import type { PluginRegistration } from '@af/plan';

export interface ListedPluginTool {
  /** The ActionService name, `plugin:<plugin>.<tool>`. */
  served: string;
  sideEffects: boolean;
  contract: Record<string, unknown>;
}

type FieldInput = { type: string; required?: boolean; description?: string };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The registry type of one JSON Schema property: scalars keep their name, arrays become `T[]`, the rest `object` / `any`. */
export function ioTypeOf(schema: unknown): string {
  if (!isRecord(schema)) return 'any';
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'string') return schema.format === 'date' || schema.format === 'date-time' ? 'date' : 'string';
  if (type === 'integer' || type === 'number' || type === 'boolean' || type === 'object') return type;
  if (type === 'array') {
    const item = ioTypeOf(schema.items);
    return item.endsWith('[]') || item === 'any' ? 'any[]' : `${item}[]`;
  }
  return 'any';
}

/** The fields of an object schema; `required` marks what its `required` lists. */
export function fieldsOf(schema: unknown): Record<string, FieldInput> {
  if (!isRecord(schema) || !isRecord(schema.properties)) return {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const out: Record<string, FieldInput> = {};
  for (const [name, prop] of Object.entries(schema.properties)) {
    const field: FieldInput = { type: ioTypeOf(prop), required: required.has(name) };
    if (isRecord(prop) && typeof prop.description === 'string' && prop.description) field.description = prop.description;
    out[name] = field;
  }
  return out;
}

/** Registrations per plugin, from the plugin tools of the action table (others are ignored). */
export function pluginRegistrations(tools: readonly ListedPluginTool[]): PluginRegistration[] {
  const byPlugin = new Map<string, PluginRegistration>();
  for (const t of tools) {
    const c = t.contract;
    if (typeof c.plugin !== 'string' || typeof c.tool !== 'string' || c.category !== `plugin:${c.plugin}`) continue;
    const reg = byPlugin.get(c.plugin) ?? { plugin_name: c.plugin, tool_contracts: [] };
    reg.tool_contracts.push({
      name: c.tool,
      description: typeof c.description === 'string' ? c.description : '',
      inputs: fieldsOf(c.input_schema),
      outputs: fieldsOf(c.output_schema),
      ...(typeof c.requires === 'string' && c.requires ? { requires: c.requires } : {}),
      read_only: !t.sideEffects,
    });
    byPlugin.set(c.plugin, reg);
  }
  return [...byPlugin.values()];
}
