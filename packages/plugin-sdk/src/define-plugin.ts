/**
 * `definePlugin`: a connector author's description of a plugin service (seed
 * §12 `BaseToolPlugin`: name, version, connection type, required config, tool
 * pack, and per tool a typed I/O contract plus the async function).
 *
 * Everything is checked here, when the module loads, with every problem named
 * by its field path — the same rules connector-runtime applies when the plugin
 * registers, so a bad contract fails on the author's machine, not at deploy.
 */
import { z } from 'zod';
import type { FieldViolation } from './errors.js';
import {
  ajvViolations,
  compileSchema,
  createAjv,
  describeViolations,
  zodViolations,
  type JsonSchema,
} from './json-schema.js';
import type { PluginLogger } from './log.js';

/** Plugin and tool-pack names: lower-case words joined by `.`, `_` or `-` (module paths such as `orchestrator.tools.web_tools` fit). */
export const PLUGIN_NAME = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/;
/** Tool names are endpoint-name shaped, so an endpoint can default to the tool of its own name. */
export const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const CONFIG_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const CONNECTION_TYPE = /^[a-z][a-z0-9_]{0,99}$/;
export const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
export const MAX_TOOLS = 100;

/** What a handler gets besides its inputs. */
export interface ToolContext {
  /** The calling user's plugin config (e.g. `webhook_url`), decrypted for this call only. Never log it. */
  config: Readonly<Record<string, string>>;
  /** `runId:nodeId:attempt` when the caller sent one; forward it where the upstream de-duplicates. */
  idempotencyKey?: string;
  /** Fires when the caller cancels or the call's timeout passes; pass it to every I/O call. */
  signal: AbortSignal;
  /** Structured log that masks the config values wherever they appear. */
  log: PluginLogger;
  /** The tool being called. */
  tool: string;
}

type InputSchema = JsonSchema | z.ZodType;
type InputOf<S> = S extends z.ZodType ? z.output<S> : Record<string, any>;

/** One tool: its contract and its implementation. */
export interface ToolSpec<S extends InputSchema = InputSchema> {
  description: string;
  /** JSON Schema (draft-07) of the inputs object, or a zod schema (converted to JSON Schema for the contract). */
  input: S;
  /** JSON Schema of the output object; checked after every call. */
  output: JsonSchema;
  /**
   * Calling it changes something outside. Such calls carry an idempotency key,
   * and a repeated key is answered from memory instead of acting twice.
   */
  sideEffecting?: boolean;
  handler(inputs: InputOf<S>, ctx: ToolContext): Promise<Record<string, unknown>> | Record<string, unknown>;
}

export interface PluginSpec<T extends Record<string, InputSchema>> {
  name: string;
  /** Semantic version, e.g. `1.2.0`. */
  version: string;
  description?: string;
  /** The kind of connection the user configures, e.g. `slack_webhook`, `api_key`, or `none`. */
  connectionType: string;
  /** Config keys every user must supply when enabling the plugin (stored encrypted by connector-runtime). */
  requiredConfig?: string[];
  /** Tool pack the tools are assigned to agents by (seed ToolPack); defaults to the plugin name. */
  toolPack?: string;
  tools: { [K in keyof T]: ToolSpec<T[K]> };
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; violations: FieldViolation[] };

/** A tool ready to serve. */
export interface PluginTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly sideEffecting: boolean;
  /** Checks inputs and returns them with defaults applied (never mutates the argument). */
  validateInput(inputs: Record<string, unknown>): ValidationResult<Record<string, unknown>>;
  validateOutput(output: Record<string, unknown>): ValidationResult<Record<string, unknown>>;
  readonly handler: (
    inputs: any,
    ctx: ToolContext,
  ) => Promise<Record<string, unknown>> | Record<string, unknown>;
}

export interface PluginDefinition {
  readonly kind: 'af-plugin';
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly connectionType: string;
  readonly requiredConfig: readonly string[];
  readonly toolPack: string;
  readonly tools: ReadonlyMap<string, PluginTool>;
}

/** A plugin definition that breaks the rules; `violations` name every problem. */
export class PluginDefinitionError extends Error {
  override readonly name = 'PluginDefinitionError';
  constructor(readonly violations: FieldViolation[]) {
    super(`invalid plugin definition: ${describeViolations(violations)}`);
  }
}

export function isPluginDefinition(value: unknown): value is PluginDefinition {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'af-plugin';
}

/** Checks the definition and prepares its validators; throws PluginDefinitionError listing every problem. */
export function definePlugin<T extends Record<string, InputSchema>>(spec: PluginSpec<T>): PluginDefinition {
  const v: FieldViolation[] = [];
  const bad = (field: string, reason: string) => v.push({ field, reason });
  const s = (spec ?? {}) as Partial<PluginSpec<T>>;

  checkName(s.name, 'name', PLUGIN_NAME, 100, bad);
  if (typeof s.version !== 'string' || !SEMVER.test(s.version) || s.version.length > 20) {
    bad('version', 'must be a semantic version such as 1.0.0 (at most 20 characters)');
  }
  if (s.description !== undefined && (typeof s.description !== 'string' || s.description.length > 2000)) {
    bad('description', 'must be text of at most 2000 characters');
  }
  checkName(
    s.connectionType,
    'connectionType',
    CONNECTION_TYPE,
    100,
    bad,
    'lower-case letters, digits and _, e.g. api_key or none',
  );
  const requiredConfig = s.requiredConfig ?? [];
  if (!Array.isArray(requiredConfig)) bad('requiredConfig', 'must be a list of config key names');
  else {
    requiredConfig.forEach((key, i) => {
      if (typeof key !== 'string' || !CONFIG_KEY.test(key))
        bad(`requiredConfig[${i}]`, 'must be letters, digits and _, starting with a letter or _');
      else if (requiredConfig.indexOf(key) !== i) bad(`requiredConfig[${i}]`, `repeats "${key}"`);
    });
  }
  const toolPack = s.toolPack ?? s.name;
  if (s.toolPack !== undefined) checkName(s.toolPack, 'toolPack', PLUGIN_NAME, 100, bad);

  const tools = new Map<string, PluginTool>();
  const specs = s.tools;
  if (
    typeof specs !== 'object' ||
    specs === null ||
    Array.isArray(specs) ||
    Object.keys(specs).length === 0
  ) {
    bad('tools', 'must declare at least one tool');
  } else if (Object.keys(specs).length > MAX_TOOLS) {
    bad('tools', `must declare at most ${MAX_TOOLS} tools`);
  } else {
    for (const [name, tool] of Object.entries(specs as Record<string, ToolSpec>)) {
      const prepared = prepareTool(name, tool, `tools.${name}`, bad);
      if (prepared) tools.set(name, prepared);
    }
  }
  if (v.length > 0) throw new PluginDefinitionError(v);
  return Object.freeze({
    kind: 'af-plugin' as const,
    name: s.name!,
    version: s.version!,
    description: s.description ?? '',
    connectionType: s.connectionType!,
    requiredConfig: Object.freeze([...requiredConfig]),
    toolPack: toolPack!,
    tools,
  });
}

function checkName(
  value: unknown,
  field: string,
  pattern: RegExp,
  max: number,
  bad: (field: string, reason: string) => void,
  shape = 'lower-case letters and digits joined by ".", "_" or "-"',
): void {
  if (typeof value !== 'string' || value.length === 0) bad(field, 'is required');
  else if (value.length > max) bad(field, `must be at most ${max} characters`);
  else if (!pattern.test(value)) bad(field, `must be ${shape}`);
}

function prepareTool(
  name: string,
  tool: ToolSpec,
  at: string,
  bad: (field: string, reason: string) => void,
): PluginTool | undefined {
  let problems = 0;
  const fail = (field: string, reason: string) => {
    problems++;
    bad(field, reason);
  };
  if (!TOOL_NAME.test(name))
    fail(at, 'tool names start with a letter and use letters, digits, _ or - (at most 64)');
  if (typeof tool !== 'object' || tool === null) {
    fail(at, 'must be a tool definition');
    return undefined;
  }
  if (typeof tool.description !== 'string' || tool.description.trim() === '')
    fail(`${at}.description`, 'is required');
  if (typeof tool.handler !== 'function') fail(`${at}.handler`, 'must be a function');

  const inputAjv = createAjv({ useDefaults: true });
  const outputAjv = createAjv({ useDefaults: false });
  let inputSchema: JsonSchema | undefined;
  let validateInput: PluginTool['validateInput'] | undefined;
  if (tool.input instanceof z.ZodType) {
    const zodInput = tool.input;
    try {
      inputSchema = z.toJSONSchema(zodInput, { target: 'draft-7', io: 'input' }) as JsonSchema;
      if (inputSchema.type !== 'object') {
        fail(`${at}.input`, 'must be a zod object schema: inputs are a JSON object');
        inputSchema = undefined;
      }
    } catch (err) {
      fail(`${at}.input`, `cannot be expressed as JSON Schema: ${(err as Error).message}`);
    }
    validateInput = (inputs) => {
      const parsed = zodInput.safeParse(inputs);
      return parsed.success
        ? { ok: true, value: parsed.data as Record<string, unknown> }
        : { ok: false, violations: zodViolations('inputs', parsed.error.issues) };
    };
  } else if (isObjectSchema(tool.input, `${at}.input`, fail)) {
    inputSchema = tool.input;
    try {
      const check = compileSchema(inputAjv, inputSchema);
      validateInput = (inputs) => {
        const copy = structuredClone(inputs);
        return check(copy)
          ? { ok: true, value: copy }
          : { ok: false, violations: ajvViolations('inputs', check.errors) };
      };
    } catch (err) {
      fail(`${at}.input`, `is not a valid JSON Schema: ${(err as Error).message}`);
    }
  }
  let validateOutput: PluginTool['validateOutput'] | undefined;
  if (isObjectSchema(tool.output, `${at}.output`, fail)) {
    try {
      const check = compileSchema(outputAjv, tool.output);
      validateOutput = (output) =>
        check(output)
          ? { ok: true, value: output }
          : { ok: false, violations: ajvViolations('output', check.errors) };
    } catch (err) {
      fail(`${at}.output`, `is not a valid JSON Schema: ${(err as Error).message}`);
    }
  }
  if (tool.sideEffecting !== undefined && typeof tool.sideEffecting !== 'boolean')
    fail(`${at}.sideEffecting`, 'must be true or false');
  if (problems > 0 || !inputSchema || !validateInput || !validateOutput) return undefined;
  return {
    name,
    description: tool.description,
    inputSchema,
    outputSchema: tool.output,
    sideEffecting: tool.sideEffecting === true,
    validateInput,
    validateOutput,
    handler: tool.handler,
  };
}

/** Inputs and outputs travel as google.protobuf.Struct, so both schemas must describe an object. */
function isObjectSchema(
  schema: unknown,
  field: string,
  fail: (field: string, reason: string) => void,
): schema is JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    fail(field, 'must be a JSON Schema object (or, for input, a zod schema)');
    return false;
  }
  if ((schema as JsonSchema).type !== 'object') {
    fail(`${field}.type`, 'must be "object": inputs and outputs are JSON objects');
    return false;
  }
  return true;
}
