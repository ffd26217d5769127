/**
 * `existing_tool` connectors (seed §4 "Type: existing_tool"): an endpoint is a
 * call of a tool of a registered plugin service (seed §12), made through
 * `ctx.invokePlugin` (the app layer finds the plugin, checks it is live and
 * enabled for the user, and calls it over gRPC).
 *
 *   connection: { plugin: slack-webhook }        # or the seed's tool_module
 *   endpoints:
 *     notify: { tool: post_message, parameters: [...] }
 *
 * The tool is the endpoint's `tool`, else the seed's `connection.tool_function`,
 * else the endpoint's own name. `passthrough: true` returns the tool's output
 * as is; otherwise the output is mapped into the `{results, count}` envelope by
 * `response_mapping` (without one, the output object is the one record).
 */
import { z } from 'zod';
import {
  parameterSchema,
  responseMappingSchema,
  type ConnectorDefinition,
} from '../../connector-definition.schema.js';
import { ConnectorError } from '../../connector-error.js';
import type { ConnectorTypeModule, PluginInvoker } from '../../connector-type.js';
import { PLUGIN_NAME, TOOL_NAME } from '../../plugin-contract.js';
import { applyResponseMapping, type EndpointResult } from '../../response-mapping.js';
import {
  checkParameters,
  connectorSchemaOf,
  findEndpoint,
  newRuleSink,
  outputSchemaField,
  resolveInputs,
  timeoutSecondsSchema,
} from '../http-common/graphql-rss-web-definition.js';

export const EXISTING_TOOL_DEFAULT_TIMEOUT_SECONDS = 30;

/** What the invoker is told about a call: PluginInvoker's options plus whose call it is. */
export type PluginCallOptions = Parameters<PluginInvoker>[3] & { ownerUserId?: string };

const pluginName = z
  .string()
  .max(100, 'must be at most 100 characters')
  .regex(PLUGIN_NAME, 'must be a plugin name: lower-case letters and digits joined by ".", "_" or "-"');
const toolName = z
  .string()
  .regex(TOOL_NAME, 'must be a tool name: a letter, then letters, digits, _ or - (at most 64)');

export const existingToolConnectionSchema = z
  .strictObject({
    /** The registered plugin whose tools the endpoints call. */
    plugin: pluginName.optional(),
    /** The seed's name for `plugin`. */
    tool_module: pluginName.optional(),
    /** The seed's default tool for endpoints that name none. */
    tool_function: toolName.optional(),
    timeout_seconds: timeoutSecondsSchema,
  })
  .superRefine((c, ctx) => {
    if (c.plugin === undefined && c.tool_module === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['plugin'],
        message: 'is required: the registered plugin to call (tool_module is accepted as its seed name)',
      });
    } else if (c.plugin !== undefined && c.tool_module !== undefined && c.plugin !== c.tool_module) {
      ctx.addIssue({
        code: 'custom',
        path: ['tool_module'],
        message: `names plugin "${c.tool_module}" but plugin is "${c.plugin}"; give one of them`,
      });
    }
  });

export const existingToolEndpointSchema = z.strictObject({
  description: z.string().optional(),
  /** The plugin tool this endpoint calls (default: connection.tool_function, else the endpoint name). */
  tool: toolName.optional(),
  /** The endpoint's inputs; without a list, inputs go to the tool unchecked here (the plugin checks its contract). */
  parameters: z.array(parameterSchema).max(100, 'must declare at most 100 parameters').optional(),
  /** Return the tool's output as is instead of the `{results, count}` envelope. */
  passthrough: z.boolean().default(false),
  response_mapping: responseMappingSchema.optional(),
  output_schema: outputSchemaField,
});
export type ExistingToolEndpoint = z.output<typeof existingToolEndpointSchema>;

export const existingToolConnectorSchema = connectorSchemaOf(
  'existing_tool',
  existingToolConnectionSchema,
  existingToolEndpointSchema,
);
export type ExistingToolConnectorDefinition = z.output<typeof existingToolConnectorSchema>;

/** The plugin and tool one endpoint calls. */
export function existingToolTarget(
  def: ExistingToolConnectorDefinition,
  endpointName: string,
): { plugin: string; tool: string } {
  const endpoint = findEndpoint(def, endpointName);
  return {
    plugin: (def.connection.plugin ?? def.connection.tool_module)!,
    tool: endpoint.tool ?? def.connection.tool_function ?? endpointName,
  };
}

function checkRules(def: ConnectorDefinition) {
  const sink = newRuleSink();
  const d = def as ExistingToolConnectorDefinition;
  for (const [name, endpoint] of Object.entries(d.endpoints)) {
    const at = `endpoints.${name}`;
    if (endpoint.parameters) checkParameters(endpoint.parameters, `${at}.parameters`, sink);
    if (endpoint.passthrough && endpoint.response_mapping) {
      sink.errors.push({
        field: `${at}.response_mapping`,
        reason: 'cannot be combined with passthrough: true, which returns the tool output as is',
      });
    }
    if (endpoint.tool === undefined && d.connection.tool_function === undefined && !TOOL_NAME.test(name)) {
      sink.errors.push({ field: `${at}.tool`, reason: 'is required: the endpoint name is not a tool name' });
    }
  }
  return sink;
}

function timeoutMs(def: ConnectorDefinition): number {
  return (
    ((def as ExistingToolConnectorDefinition).connection.timeout_seconds ??
      EXISTING_TOOL_DEFAULT_TIMEOUT_SECONDS) * 1000
  );
}

export const existingToolType: ConnectorTypeModule = {
  type: 'existing_tool',
  schema: existingToolConnectorSchema,
  knownKeys: ['plugin', 'tool_module', 'tool_function', 'tool', 'passthrough'],
  checkRules,
  // The plugin's config comes from the user's plugin settings (SetPluginEnabled), not the connector.
  requiredCredentials: () => [],
  timeoutMs,
  execute: async (def, endpointName, inputs, _credentials, ctx): Promise<EndpointResult> => {
    const d = def as ExistingToolConnectorDefinition;
    const endpoint = findEndpoint(d, endpointName);
    const { plugin, tool } = existingToolTarget(d, endpointName);
    const toolInputs = endpoint.parameters
      ? Object.fromEntries(resolveInputs(endpoint.parameters, endpointName, inputs))
      : checkedObject(inputs);
    if (!ctx.invokePlugin) {
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `connector "${d.id}" calls plugin ${plugin}, and plugin calls are not available here`,
      );
    }
    if (ctx.signal?.aborted)
      throw new ConnectorError('CANCELLED', `the call of connector "${d.id}" was cancelled`);
    // The plugin config is the calling user's: the invoker needs to know whose call this is.
    const options: PluginCallOptions = {
      timeoutMs: ctx.timeoutMs ?? timeoutMs(d),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.idempotencyKey ? { idempotencyKey: ctx.idempotencyKey } : {}),
      ...(ctx.ownerUserId ? { ownerUserId: ctx.ownerUserId } : {}),
    };
    // Errors of the invoker (plugin unknown, inactive, refused inputs, …) reach the caller as they are.
    const output = await ctx.invokePlugin(plugin, tool, toolInputs, options);
    if (endpoint.passthrough) return output as unknown as EndpointResult;
    return applyResponseMapping(output, endpoint.response_mapping);
  },
};

function checkedObject(inputs: unknown): Record<string, unknown> {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw ConnectorError.invalid('inputs', 'must be an object of tool inputs');
  }
  return { ...(inputs as Record<string, unknown>) };
}
