/**
 * Bindings of connectors to agent profiles (seed `agent_data_sources`): what a
 * profile may call (allowed endpoints), with which settings (config overrides
 * merged over the connection block and re-validated) and credentials (the
 * binding's own, overriding the connector's by name), at what rate.
 */
import { AppError } from '@af/service-kit';
import { parseConnectorDefinition, type ConnectorDefinition } from '@af/connectors';
import type { BindingRepository, StoredBinding } from '../infra/binding.repository.js';
import type { ConnectorRepository } from '../infra/connector.repository.js';
import { checkCredentials, invalidDefinition, requireUser } from './connector-input.js';

const PROFILE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const MAX_OVERRIDES_BYTES = 64 * 1024;

export interface BindCommand {
  userId: string;
  agentProfileId: string;
  connectorId: string;
  configOverrides: Record<string, unknown>;
  allowedEndpoints: string[];
  rateLimitPerMinute: number;
  credentials: Record<string, string>;
  disabled: boolean;
  unbind: boolean;
}

/** What a call through a binding runs with. */
export interface BoundCall {
  binding: StoredBinding;
  definition: ConnectorDefinition;
  credentials: Record<string, string>;
}

export class Bindings {
  constructor(
    private readonly repo: BindingRepository,
    private readonly connectors: ConnectorRepository,
  ) {}

  async bind(cmd: BindCommand): Promise<StoredBinding | null> {
    requireUser(cmd.userId);
    if (!PROFILE_ID.test(cmd.agentProfileId)) {
      throw AppError.invalid('agent_profile_id', 'is required: letters, digits, _ . : - (at most 128)');
    }
    if (!cmd.connectorId) throw AppError.invalid('connector_id', 'is required');
    if (cmd.unbind) {
      if (!(await this.repo.delete(cmd.userId, cmd.agentProfileId, cmd.connectorId))) {
        throw AppError.notFound('binding', `${cmd.agentProfileId}/${cmd.connectorId}`);
      }
      return null;
    }
    const stored = await this.connectors.get(cmd.userId, cmd.connectorId);
    if (!stored) throw AppError.notFound('connector', cmd.connectorId);
    const endpoints = Object.keys(stored.definition.endpoints);
    cmd.allowedEndpoints.forEach((name, i) => {
      if (!endpoints.includes(name)) {
        throw AppError.invalid(`allowed_endpoints[${i}]`, `connector ${cmd.connectorId} has no endpoint "${name}"; it has ${endpoints.join(', ')}`);
      }
    });
    if (!Number.isFinite(cmd.rateLimitPerMinute) || cmd.rateLimitPerMinute < 0) {
      throw AppError.invalid('rate_limit_per_minute', 'must be 0 (the connector\'s own limit) or a positive number');
    }
    if (Buffer.byteLength(JSON.stringify(cmd.configOverrides)) > MAX_OVERRIDES_BYTES) {
      throw AppError.invalid('config_overrides', `must be at most ${MAX_OVERRIDES_BYTES} bytes of JSON`);
    }
    // The merged definition must still be valid; errors point into config_overrides.
    withOverrides(stored.definition, cmd.configOverrides);
    checkCredentials(cmd.credentials);
    return this.repo.upsert(cmd.userId, cmd.agentProfileId, cmd.connectorId, {
      configOverrides: cmd.configOverrides,
      allowedEndpoints: [...new Set(cmd.allowedEndpoints)],
      rateLimitPerMinute: cmd.rateLimitPerMinute,
      disabled: cmd.disabled,
      credentials: cmd.credentials,
    });
  }

  list(userId: string, agentProfileId: string): Promise<StoredBinding[]> {
    requireUser(userId);
    return this.repo.list(userId, agentProfileId);
  }

  /** Resolves a call through `agentProfileId`'s binding, refusing what the binding does not allow. */
  async resolve(userId: string, agentProfileId: string, def: ConnectorDefinition, endpoint: string, connectorCredentials: Record<string, string>): Promise<BoundCall> {
    const binding = await this.repo.get(userId, agentProfileId, def.id);
    if (!binding) throw new AppError('NOT_FOUND', `connector ${def.id} is not bound to agent profile ${agentProfileId}`);
    if (binding.status === 'disabled') throw new AppError('FAILED_PRECONDITION', `the binding of ${def.id} to ${agentProfileId} is disabled`);
    if (binding.status === 'auth_failed') {
      throw new AppError('FAILED_PRECONDITION', `connector ${def.id} needs re-authentication for agent profile ${agentProfileId} (${binding.statusReason}); bind it again with new credentials`);
    }
    if (binding.allowedEndpoints.length > 0 && !binding.allowedEndpoints.includes(endpoint)) {
      throw new AppError('PERMISSION_DENIED', `agent profile ${agentProfileId} may not call ${def.id}/${endpoint}; allowed: ${binding.allowedEndpoints.join(', ')}`);
    }
    const credentials = { ...connectorCredentials, ...(await this.repo.credentials(userId, agentProfileId, def.id)) };
    return { binding, definition: withOverrides(def, binding.configOverrides), credentials };
  }

  markAuthFailed(userId: string, agentProfileId: string, connectorId: string, reason: string): Promise<boolean> {
    return this.repo.markAuthFailed(userId, agentProfileId, connectorId, reason);
  }
}

/**
 * `config_overrides` merged over the definition's `connection` block (objects
 * merge key by key, anything else replaces) and validated again, so an
 * override can never produce a definition the parser would refuse.
 */
export function withOverrides(def: ConnectorDefinition, overrides: Record<string, unknown>): ConnectorDefinition {
  if (Object.keys(overrides).length === 0) return def;
  // Calls through a binding merge the same overrides into the same definition object every
  // time: the merged (and re-validated) definition is kept per pair, so it is parsed once and
  // what is worked out per definition object (request plans, limits) carries over too.
  const text = JSON.stringify(overrides);
  let byOverrides = MERGED.get(def);
  const cached = byOverrides?.get(text);
  if (cached) return cached;
  const merged = { ...def, connection: deepMerge(def.connection as Record<string, unknown>, overrides) };
  const parsed = parseConnectorDefinition(merged);
  if (!parsed.ok) {
    throw invalidDefinition(parsed.errors.map((e) => ({ ...e, field: e.field.replace(/^connection\b/, 'config_overrides') })));
  }
  if (!byOverrides) MERGED.set(def, (byOverrides = new Map()));
  if (byOverrides.size >= MAX_MERGED_PER_DEFINITION) byOverrides.delete(byOverrides.keys().next().value as string);
  byOverrides.set(text, parsed.definition);
  return parsed.definition;
}

/** Merged definitions by base definition object and overrides text. */
const MERGED = new WeakMap<ConnectorDefinition, Map<string, ConnectorDefinition>>();
const MAX_MERGED_PER_DEFINITION = 64;

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isObject(b) && isObject(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
