/**
 * What a plugin service announces when it registers (seed §12
 * `BaseToolPlugin`: name, version, connection type, required config, tool
 * pack, typed I/O contracts per tool) and the rules the registry holds it to.
 * Every problem names its field the way the wire does (`tools[1].input_schema`).
 *
 * The same rules are applied by `@af/plugin-sdk` when a plugin is defined, so
 * an SDK plugin that starts is one the registry accepts.
 */
import { Ajv } from 'ajv';
import type { ConnectorFieldViolation } from './connector-error.js';

/** Plugin and tool-pack names: lower-case words joined by `.`, `_` or `-` (module paths like the seed's `orchestrator.tools.web_tools` fit). */
export const PLUGIN_NAME = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/;
/** Endpoint-name shaped, so an `existing_tool` endpoint can default to the tool of its own name. */
export const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const CONFIG_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const CONNECTION_TYPE = /^[a-z][a-z0-9_]{0,99}$/;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^\[[0-9A-Fa-f:.]{2,45}\]$/;

export const MAX_PLUGIN_TOOLS = 100;
export const MAX_REQUIRED_CONFIG = 50;
/** A contract's schemas are cached in the registry row and sent on every GetPlugin; keep them small. */
export const MAX_SCHEMA_BYTES = 64 * 1024;

export interface PluginToolContract {
  name: string;
  description: string;
  /** JSON Schema of the tool's inputs object. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of its output object. */
  outputSchema: Record<string, unknown>;
  /** Connection type it needs; empty for none. */
  requires: string;
  sideEffecting: boolean;
}

export interface PluginRegistration {
  name: string;
  version: string;
  description: string;
  connectionType: string;
  requiredConfig: string[];
  toolPackName: string;
  tools: PluginToolContract[];
  /** `host:port` of the plugin's ConnectorPluginService. */
  address: string;
}

/** Every problem with a registration; empty when it is acceptable. */
export function checkPluginRegistration(r: PluginRegistration): ConnectorFieldViolation[] {
  const v: ConnectorFieldViolation[] = [];
  const bad = (field: string, reason: string) => v.push({ field, reason });
  checkName(r.name, 'name', bad);
  if (!SEMVER.test(r.version) || r.version.length > 20)
    bad('version', 'must be a semantic version such as 1.0.0 (at most 20 characters)');
  if (r.description.length > 2000) bad('description', 'must be at most 2000 characters');
  if (!CONNECTION_TYPE.test(r.connectionType))
    bad('connection_type', 'must be lower-case letters, digits and _, e.g. api_key or none');
  if (r.requiredConfig.length > MAX_REQUIRED_CONFIG)
    bad('required_config', `must list at most ${MAX_REQUIRED_CONFIG} keys`);
  r.requiredConfig.forEach((key, i) => {
    if (!CONFIG_KEY.test(key))
      bad(`required_config[${i}]`, 'must be letters, digits and _, starting with a letter or _');
    else if (r.requiredConfig.indexOf(key) !== i) bad(`required_config[${i}]`, `repeats "${key}"`);
  });
  checkName(r.toolPackName, 'tool_pack_name', bad);
  if (!parsePluginAddress(r.address))
    bad(
      'address',
      'must be host:port (a hostname, IPv4 address or [IPv6] address, and a port from 1 to 65535)',
    );
  if (r.tools.length === 0) bad('tools', 'must declare at least one tool');
  if (r.tools.length > MAX_PLUGIN_TOOLS) bad('tools', `must declare at most ${MAX_PLUGIN_TOOLS} tools`);
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true, logger: false });
  const seen = new Set<string>();
  r.tools.forEach((tool, i) => {
    const at = `tools[${i}]`;
    if (!TOOL_NAME.test(tool.name))
      bad(`${at}.name`, 'must start with a letter and use letters, digits, _ or - (at most 64)');
    else if (seen.has(tool.name)) bad(`${at}.name`, `repeats tool "${tool.name}"`);
    seen.add(tool.name);
    if (tool.description.trim() === '') bad(`${at}.description`, 'is required');
    if (tool.requires !== '' && !CONNECTION_TYPE.test(tool.requires))
      bad(`${at}.requires`, 'must be a connection type or empty');
    checkSchema(ajv, tool.inputSchema, `${at}.input_schema`, bad);
    checkSchema(ajv, tool.outputSchema, `${at}.output_schema`, bad);
  });
  return v;
}

function checkName(value: string, field: string, bad: (field: string, reason: string) => void): void {
  if (value === '') bad(field, 'is required');
  else if (value.length > 100) bad(field, 'must be at most 100 characters');
  else if (!PLUGIN_NAME.test(value))
    bad(field, 'must be lower-case letters and digits joined by ".", "_" or "-"');
}

function checkSchema(
  ajv: Ajv,
  schema: Record<string, unknown> | undefined,
  field: string,
  bad: (field: string, reason: string) => void,
): void {
  if (schema === undefined || schema === null) return void bad(field, 'is required');
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES)
    return void bad(field, `must be at most ${MAX_SCHEMA_BYTES / 1024} KiB of JSON`);
  if (schema.type !== 'object')
    return void bad(`${field}.type`, 'must be "object": tool inputs and outputs are JSON objects');
  // Another draft's `$schema` would make Ajv look for a meta-schema it does not have; the shape is checked against draft-07.
  const { $schema: _ignored, ...rest } = schema;
  try {
    ajv.compile(rest);
  } catch (err) {
    bad(field, `is not a valid JSON Schema: ${(err as Error).message}`);
  }
}

/** `host:port` → parts, or undefined when it is not one. */
export function parsePluginAddress(address: string): { host: string; port: number } | undefined {
  const i = address.lastIndexOf(':');
  if (i <= 0) return undefined;
  const host = address.slice(0, i);
  const portText = address.slice(i + 1);
  if (!/^\d{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  if (port < 1 || port > 65535) return undefined;
  // All-digit dotted names are IPv4 addresses or nothing (999.1.1.1 is not a hostname).
  const ok = /^[\d.]+$/.test(host) ? IPV4.test(host) : IPV6.test(host) || HOSTNAME.test(host);
  if (!ok) return undefined;
  return { host, port };
}
