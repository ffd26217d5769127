/**
 * Connector use cases: CRUD over definitions with encrypted credentials,
 * validation, endpoint schemas, and idempotent endpoint execution (a replay of
 * `runId:nodeId:attempt` returns the stored result, and waits for a call with
 * the same key that is still running), optionally through an agent profile's
 * binding.
 */
import { AppError, registerSecret, type ErrorCode, type Logger } from '@af/service-kit';
import {
  ConnectorError,
  CONNECTOR_ERROR_GRPC_STATUS,
  connectorTimeoutMs,
  endpointJsonSchemas,
  endpointWriteReason,
  parseConnectorDefinition,
  parseConnectorYaml,
  requiredCredentials,
  type ConnectorDefinition,
  type EndpointJsonSchemas,
  type ParseConnectorResult,
} from '@af/connectors';
import type { ConnectorRepository, StoredConnector } from '../infra/connector.repository.js';
import type { ExecutionRepository } from '../infra/execution.repository.js';
import type { Bindings } from './bindings.js';
import type { CallPipeline, PipelineCall } from './call-pipeline.js';
import { checkCredentials, invalidDefinition, requireUser } from './connector-input.js';

export interface ExecuteCommand {
  userId: string;
  connectorId: string;
  endpoint: string;
  inputs: Record<string, unknown>;
  idempotencyKey: string;
  /** Call through this agent profile's binding (allowed endpoints, overrides, credentials). */
  agentProfileId?: string;
  /** A dry run: an endpoint that may change something upstream is refused (`dry_run_write`) before any request. */
  readOnly?: boolean;
}

/** A connector's source: YAML text, or an already-decoded definition. */
export interface DefinitionSource {
  yaml?: string;
  definition?: Record<string, unknown> | undefined;
}

export class Connectors {
  constructor(
    private readonly repo: ConnectorRepository,
    private readonly executions: ExecutionRepository,
    private readonly bindings: Bindings,
    private readonly pipeline: CallPipeline,
    private readonly log: Logger,
    private readonly options: {
      idempotencyWindowMs: number;
      /** A user's own OAuth connection was refused by the provider (AUTH_FAILED): mark it so the user sees it. */
      onConnectionAuthFailed?: (userId: string, connectorId: string) => Promise<void>;
    },
  ) {}

  /** Saves a connector (replacing one with its id); `onlyIfNew`: the error when the user already has one with that id. */
  async create(userId: string, source: DefinitionSource, credentials: Record<string, string>, options: { onlyIfNew?: () => Error } = {}): Promise<StoredConnector> {
    requireUser(userId);
    const parsed = parseSource(source);
    if (!parsed.ok) throw invalidDefinition(parsed.errors);
    const def = parsed.definition;
    checkCredentials(credentials);
    // Credentials stored earlier for this id count (an update need not resend them).
    const existing = (await this.repo.get(userId, def.id))?.credentialNames ?? [];
    for (const name of requiredCredentials(def)) {
      if (!credentials[name] && !existing.includes(name)) {
        throw AppError.invalid(`credentials.${name}`, `is required by the connector's connection settings`, 'missing_required');
      }
    }
    const stored = await this.repo.upsert(userId, def, credentials, options);
    this.log.info({ userId, connectorId: def.id, type: def.type, credentialNames: Object.keys(credentials) }, 'connector saved');
    return stored;
  }

  /** Parses and checks a definition without saving it. */
  async validate(userId: string, source: DefinitionSource & { connectorId?: string }): Promise<ParseConnectorResult> {
    requireUser(userId);
    if (!source.yaml && !source.definition) {
      if (!source.connectorId) throw AppError.invalid('yaml', 'give yaml, definition or connector_id');
      return parseConnectorDefinition((await this.get(userId, source.connectorId)).definition);
    }
    return parseSource(source);
  }

  async get(userId: string, id: string): Promise<StoredConnector> {
    requireUser(userId);
    if (!id) throw AppError.invalid('id', 'is required');
    const found = await this.repo.get(userId, id);
    if (!found) throw AppError.notFound('connector', id);
    return found;
  }

  list(userId: string): Promise<StoredConnector[]> {
    requireUser(userId);
    return this.repo.list(userId);
  }

  async delete(userId: string, id: string): Promise<void> {
    requireUser(userId);
    if (!(await this.repo.delete(userId, id))) throw AppError.notFound('connector', id);
  }

  async schema(userId: string, id: string): Promise<{ definition: ConnectorDefinition; endpoints: EndpointJsonSchemas[] }> {
    const { definition } = await this.get(userId, id);
    return { definition, endpoints: endpointJsonSchemas(definition) };
  }

  async execute(cmd: ExecuteCommand): Promise<{ result: Record<string, unknown>; deduplicated: boolean }> {
    requireUser(cmd.userId);
    if (!cmd.connectorId) throw AppError.invalid('connector_id', 'is required');
    if (!cmd.endpoint) throw AppError.invalid('endpoint', 'is required');
    const stored = await this.get(cmd.userId, cmd.connectorId);
    if (cmd.readOnly) {
      const writes = endpointWriteReason(stored.definition, cmd.endpoint);
      if (writes) {
        const reason = `a dry run does not call endpoint "${cmd.endpoint}" of connector "${cmd.connectorId}": ${writes}`;
        throw new AppError('FAILED_PRECONDITION', reason, { retryable: false, violations: [{ field: 'endpoint', reason, code: 'dry_run_write' }] });
      }
    }
    if (!cmd.idempotencyKey) return { result: await this.call(stored.definition, cmd), deduplicated: false };

    const timeoutMs = connectorTimeoutMs(stored.definition);
    const staleMs = timeoutMs * 2 + 30_000;
    for (;;) {
      const claim = await this.executions.claim(cmd.idempotencyKey, cmd.userId, cmd.connectorId, cmd.endpoint, staleMs, this.options.idempotencyWindowMs);
      if (claim.state === 'completed') return { result: claim.result, deduplicated: true };
      if (claim.state === 'failed') throw new AppError(asErrorCode(claim.error.code), claim.error.message, { retryable: false });
      if (claim.state === 'in_progress') {
        // The same call (e.g. from a replica that died) is still running here: wait for its result.
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      const beat = setInterval(() => void this.executions.heartbeat(cmd.idempotencyKey).catch(() => undefined), 10_000);
      try {
        const result = await this.call(stored.definition, cmd);
        await this.executions.complete(cmd.idempotencyKey, result);
        return { result, deduplicated: false };
      } catch (err) {
        const app = toAppError(err);
        await this.executions.fail(cmd.idempotencyKey, { code: app.code, message: app.message }, !app.retryable);
        throw app;
      } finally {
        clearInterval(beat);
      }
    }
  }

  /**
   * One call of an endpoint of a definition that need not be saved (TestConnector,
   * `af connector test`): no idempotency, no binding.
   */
  async callOnce(userId: string, def: ConnectorDefinition, endpoint: string, inputs: Record<string, unknown>, credentials: Record<string, string>): Promise<Record<string, unknown>> {
    for (const value of Object.values(credentials)) registerSecret(value);
    return this.run({ ownerUserId: userId, def, endpoint, inputs, credentials, noCache: true });
  }

  private async call(def: ConnectorDefinition, cmd: ExecuteCommand): Promise<Record<string, unknown>> {
    let credentials = await this.repo.credentials(cmd.userId, def.id);
    let effective = def;
    let binding: PipelineCall['binding'];
    if (cmd.agentProfileId) {
      const bound = await this.bindings.resolve(cmd.userId, cmd.agentProfileId, def, cmd.endpoint, credentials);
      effective = bound.definition;
      credentials = bound.credentials;
      binding = { agentProfileId: cmd.agentProfileId, rateLimitPerMinute: bound.binding.rateLimitPerMinute };
    }
    for (const value of Object.values(credentials)) registerSecret(value);
    try {
      return await this.run({
        ownerUserId: cmd.userId,
        def: effective,
        endpoint: cmd.endpoint,
        inputs: cmd.inputs,
        credentials,
        ...(binding ? { binding } : {}),
        ...(cmd.idempotencyKey ? { idempotencyKey: cmd.idempotencyKey } : {}),
      });
    } catch (err) {
      const upstream = err instanceof AppError ? err.cause : undefined;
      const auth = 'connection' in def ? (def.connection as { auth?: { type?: string; grant_type?: string } }).auth : undefined;
      if (upstream instanceof ConnectorError && upstream.code === 'AUTH_FAILED' && auth?.type === 'oauth2' && auth.grant_type === 'authorization_code') {
        await this.options.onConnectionAuthFailed?.(cmd.userId, def.id).catch((e: unknown) => this.log.error({ err: e, connectorId: def.id }, 'could not mark the oauth connection expired'));
      }
      if (cmd.agentProfileId && upstream instanceof ConnectorError && upstream.code === 'AUTH_FAILED') {
        const marked = await this.bindings.markAuthFailed(cmd.userId, cmd.agentProfileId, def.id, (err as Error).message).catch((e: unknown) => {
          this.log.error({ err: e, connectorId: def.id }, 'could not mark the binding auth_failed');
          return false;
        });
        if (marked) this.log.warn({ connectorId: def.id, agentProfileId: cmd.agentProfileId }, 'binding marked auth_failed');
      }
      throw err;
    }
  }

  private async run(call: PipelineCall): Promise<Record<string, unknown>> {
    const { def, endpoint } = call;
    const started = Date.now();
    try {
      const result = await this.pipeline.call(call);
      this.log.info({ connectorId: def.id, endpoint, count: result.count, ms: Date.now() - started, warnings: result.warnings?.length ?? 0 }, 'endpoint executed');
      return result as unknown as Record<string, unknown>;
    } catch (err) {
      this.log.warn({ connectorId: def.id, endpoint, code: err instanceof ConnectorError || err instanceof AppError ? err.code : "INTERNAL", ms: Date.now() - started }, "endpoint failed");
      throw toAppError(err);
    }
  }
}

export function parseSource(source: DefinitionSource): ParseConnectorResult {
  return source.yaml ? parseConnectorYaml(source.yaml) : parseConnectorDefinition(source.definition ?? null);
}

/** A failure as a gRPC status: ConnectorErrors keep their retryability, retry-after and field violations. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ConnectorError) {
    return new AppError(CONNECTOR_ERROR_GRPC_STATUS[err.code] as ErrorCode, err.message, {
      retryable: err.retryable,
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
      violations: err.violations,
      cause: err,
    });
  }
  return new AppError('INTERNAL', 'connector call failed unexpectedly', { cause: err });
}

function asErrorCode(code: string): ErrorCode {
  return (['INVALID_ARGUMENT', 'NOT_FOUND', 'FAILED_PRECONDITION', 'UNIMPLEMENTED', 'ALREADY_EXISTS', 'PERMISSION_DENIED'] as const).find((c) => c === code) ?? 'FAILED_PRECONDITION';
}
