import { call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import { connector } from '@af/contracts';
import { AppError } from '@af/service-kit';
import { createHash } from 'node:crypto';
import type { LlmTool } from '@af/llm';
import { Skipped, type NodeContext, type NodeExecutor } from '../domain/node-executor.js';
import { DRY_RUN, wouldBeInputs } from '../domain/dry-run.js';

/** connector-runtime's violation code for an endpoint a dry run may not call (it may write). */
const DRY_RUN_WRITE = 'dry_run_write';
import { KeyedLimiter } from '../domain/semaphore.js';

/**
 * Per-connector concurrency (CONNECTOR_CONCURRENCY, CONNECTOR_CONCURRENCY_OVERRIDES):
 * calls to one connector of one owner in flight at once on this replica,
 * shared by all its runs (node calls, research tools and rollbacks alike).
 */
export class ConnectorLimits {
  private readonly limiter: KeyedLimiter;

  constructor(defaultLimit: number, overrides: ReadonlyMap<string, number> = new Map()) {
    this.limiter = new KeyedLimiter((key) => overrides.get(key.slice(key.lastIndexOf('/') + 1)) ?? defaultLimit);
  }

  run<T>(userId: string, connectorId: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.limiter.run(`${userId}/${connectorId}`, fn, signal);
  }

  inUse(userId: string, connectorId: string): number {
    return this.limiter.inUse(`${userId}/${connectorId}`);
  }
}

const UNLIMITED = new ConnectorLimits(Number.MAX_SAFE_INTEGER);

export function connectorClient(address: string, auth: PrincipalSigner): connector.ConnectorServiceClient {
  return createGrpcClient<connector.ConnectorServiceClient>('connector', connector.CONNECTOR_SERVICE_NAME, address, { auth });
}

/** `tool` nodes with `action: call_connector` → connector-runtime ExecuteEndpoint. */
export function callConnectorExecutor(client: connector.ConnectorServiceClient, limits: ConnectorLimits = UNLIMITED): NodeExecutor {
  return async (ctx) => {
    const connectorId = ctx.params.connector;
    const endpoint = ctx.params.endpoint;
    if (typeof connectorId !== 'string' || typeof endpoint !== 'string') {
      throw new AppError('INVALID_ARGUMENT', `node ${ctx.node.id}: params.connector and params.endpoint must be strings`, {
        retryable: false,
      });
    }
    let response: connector.ExecuteEndpointResponse;
    try {
      response = await limits.run(
        ctx.userId,
        connectorId,
        () =>
          call(
            client.executeEndpoint({
              principal: { userId: ctx.userId, teamIds: [] },
              connectorId,
              endpoint,
              inputs: ctx.inputs,
              idempotencyKey: ctx.idempotencyKey,
              agentProfileId: typeof ctx.params.agent_profile_id === 'string' ? ctx.params.agent_profile_id : '',
              // A dry run: connector-runtime refuses an endpoint that may write, before any request goes out.
              readOnly: ctx.run.dryRun,
            }),
            ctx.timeoutMs,
          ),
        ctx.signal,
      );
    } catch (err) {
      const refused = err instanceof AppError && err.violations.find((v) => v.code === DRY_RUN_WRITE);
      if (ctx.run.dryRun && refused) {
        return new Skipped(DRY_RUN, { action: 'call_connector', connector: connectorId, endpoint, why: refused.reason, ...wouldBeInputs(ctx.inputs) });
      }
      throw err;
    }
    return response.result ?? {};
  };
}

const TOOL_NAME = /^([a-z0-9][a-z0-9-]*)__([A-Za-z0-9_-]+)$/;

/**
 * The tools a `research_with_tools` node may use: its `params.tools` names of
 * the form `<connector>__<endpoint>`, each an endpoint of the run owner's
 * connectors. Every call is keyed by node attempt, tool and arguments, so a
 * replayed node does not repeat a call it already made.
 */
export function connectorTools(client: connector.ConnectorServiceClient, limits: ConnectorLimits = UNLIMITED) {
  return async (ctx: NodeContext): Promise<LlmTool[]> => {
    const names = Array.isArray(ctx.params.tools) ? ctx.params.tools.filter((t): t is string => typeof t === 'string') : [];
    const tools: LlmTool[] = [];
    for (const name of names) {
      const m = TOOL_NAME.exec(name);
      if (!m) continue;
      const [, connectorId, endpoint] = m as unknown as [string, string, string];
      const found = await call(client.getConnector({ principal: { userId: ctx.userId, teamIds: [] }, id: connectorId })).catch(() => undefined);
      const definition = found?.connector?.definition as { endpoints?: Record<string, { description?: string; parameters?: Array<{ name: string; type?: string; description?: string; required?: boolean }> }> } | undefined;
      const ep = definition?.endpoints?.[endpoint];
      if (!ep) continue;
      const properties: Record<string, unknown> = {};
      for (const p of ep.parameters ?? []) properties[p.name] = { type: jsonType(p.type), ...(p.description ? { description: p.description } : {}) };
      tools.push({
        name,
        description: ep.description ?? `Call ${endpoint} of connector ${connectorId}`,
        schema: { type: 'object', properties, required: (ep.parameters ?? []).filter((p) => p.required).map((p) => p.name) },
        invoke: async (args, options) => {
          const key = `${ctx.idempotencyKey}:${name}:${createHash('sha256').update(JSON.stringify(args)).digest('hex').slice(0, 16)}`;
          const res = await limits.run(
            ctx.userId,
            connectorId,
            () =>
              call(
                client.executeEndpoint({ principal: { userId: ctx.userId, teamIds: [] }, connectorId, endpoint, inputs: args, idempotencyKey: key, agentProfileId: '', readOnly: ctx.run.dryRun }),
                ctx.timeoutMs,
              ),
            ctx.signal,
          );
          void options;
          return res.result ?? {};
        },
      });
    }
    return tools;
  };
}

function jsonType(t: string | undefined): string {
  if (t === 'integer' || t === 'number' || t === 'boolean' || t === 'object' || t === 'array') return t;
  return 'string';
}
