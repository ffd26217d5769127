/**
 * Connector use cases: CRUD over definitions with encrypted credentials, and
 * idempotent endpoint execution (a replay of `runId:nodeId:attempt` returns the
 * stored result, and waits for a call with the same key that is still running).
 */
import { AppError, registerSecret, type ErrorCode, type Logger } from '@af/service-kit';
import {
  ConnectorError,
  CONNECTOR_ERROR_GRPC_STATUS,
  connectorTimeoutMs,
  executeEndpoint,
  parseConnectorDefinition,
  parseConnectorYaml,
  requiredCredentials,
  type ExecutionContext,
  type ConnectorDefinition,
  type ConnectorDefinitionIssue,
} from '../domain/index.js';
import type { ConnectorRepository, StoredConnector } from '../infra/connector.repository.js';
import type { ExecutionRepository } from '../infra/execution.repository.js';

const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_CREDENTIAL_BYTES = 16 * 1024;

export interface ExecuteCommand {
  userId: string;
  connectorId: string;
  endpoint: string;
  inputs: Record<string, unknown>;
  idempotencyKey: string;
}

export class Connectors {
  constructor(
    private readonly repo: ConnectorRepository,
    private readonly executions: ExecutionRepository,
    private readonly log: Logger,
    private readonly options: { idempotencyWindowMs: number },
    private readonly context: Omit<ExecutionContext, 'timeoutMs' | 'signal' | 'idempotencyKey'>,
  ) {}

  async create(userId: string, source: { yaml: string; definition?: Record<string, unknown> }, credentials: Record<string, string>): Promise<StoredConnector> {
    requireUser(userId);
    const parsed = source.yaml ? parseConnectorYaml(source.yaml) : parseConnectorDefinition(source.definition ?? null);
    if (!parsed.ok) throw invalid(parsed.errors);
    const def = parsed.definition;
    for (const [name, value] of Object.entries(credentials)) {
      if (!CREDENTIAL_NAME.test(name)) throw AppError.invalid(`credentials.${name}`, 'credential names are letters, digits and _');
      if (typeof value !== 'string' || value.length === 0) throw AppError.invalid(`credentials.${name}`, 'must be a non-empty string');
      if (Buffer.byteLength(value) > MAX_CREDENTIAL_BYTES) throw AppError.invalid(`credentials.${name}`, 'is too large');
    }
    for (const name of requiredCredentials(def)) {
      if (!credentials[name]) {
        throw AppError.invalid(`credentials.${name}`, `is required by the connector's connection settings`, 'missing_required');
      }
    }
    const stored = await this.repo.upsert(userId, def, credentials);
    this.log.info({ userId, connectorId: def.id, type: def.type, credentialNames: Object.keys(credentials) }, 'connector saved');
    return stored;
  }

  async get(userId: string, id: string): Promise<StoredConnector> {
    requireUser(userId);
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

  async execute(cmd: ExecuteCommand): Promise<{ result: Record<string, unknown>; deduplicated: boolean }> {
    requireUser(cmd.userId);
    if (!cmd.endpoint) throw AppError.invalid('endpoint', 'is required');
    const stored = await this.get(cmd.userId, cmd.connectorId);
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

  private async call(def: ConnectorDefinition, cmd: ExecuteCommand): Promise<Record<string, unknown>> {
    const credentials = await this.repo.credentials(cmd.userId, def.id);
    for (const value of Object.values(credentials)) registerSecret(value);
    const started = Date.now();
    try {
      const result = await executeEndpoint(def, cmd.endpoint, cmd.inputs, credentials, {
        ...this.context,
        ...(cmd.idempotencyKey ? { idempotencyKey: cmd.idempotencyKey } : {}),
      });
      this.log.info({ connectorId: def.id, endpoint: cmd.endpoint, count: result.count, ms: Date.now() - started }, 'endpoint executed');
      return result as unknown as Record<string, unknown>;
    } catch (err) {
      this.log.warn({ connectorId: def.id, endpoint: cmd.endpoint, code: (err as ConnectorError).code, ms: Date.now() - started }, 'endpoint failed');
      throw toAppError(err);
    }
  }
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ConnectorError) {
    return new AppError(CONNECTOR_ERROR_GRPC_STATUS[err.code] as ErrorCode, err.message, {
      retryable: err.retryable,
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
      violations: err.violations,
    });
  }
  return new AppError('INTERNAL', 'connector call failed unexpectedly', { cause: err });
}

function asErrorCode(code: string): ErrorCode {
  return (['INVALID_ARGUMENT', 'NOT_FOUND', 'FAILED_PRECONDITION', 'UNIMPLEMENTED', 'ALREADY_EXISTS'] as const).find((c) => c === code) ?? 'FAILED_PRECONDITION';
}

function invalid(errors: ConnectorDefinitionIssue[]): AppError {
  const violations = errors.map((e) => ({
    field: e.field,
    reason: e.line !== undefined ? `${e.reason} (line ${e.line}${e.column !== undefined ? `, column ${e.column}` : ''})` : e.reason,
  }));
  return new AppError('INVALID_ARGUMENT', `invalid connector: ${violations.map((v) => `${v.field}: ${v.reason}`).join('; ')}`, { violations });
}

function requireUser(userId: string): void {
  if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
}
