/**
 * Connector bindings per agent profile with their own encrypted credentials.
 * Credential ciphertexts are bound to their row by AAD, like a connector's.
 */
import { AppError, decryptSecret, encryptSecret, sqlRows, type Keyring, type ServiceKit } from '@af/service-kit';

export type BindingStatus = 'active' | 'auth_failed' | 'disabled';

export interface StoredBinding {
  agentProfileId: string;
  connectorId: string;
  configOverrides: Record<string, unknown>;
  allowedEndpoints: string[];
  rateLimitPerMinute: number;
  status: BindingStatus;
  statusReason: string;
  credentialNames: string[];
  updatedAt: Date;
}

export interface BindingInput {
  configOverrides: Record<string, unknown>;
  allowedEndpoints: string[];
  rateLimitPerMinute: number;
  disabled: boolean;
  credentials: Record<string, string>;
}

export const bindingCredentialAad = (owner: string, profile: string, connectorId: string, name: string) =>
  `binding:${owner}:${profile}:${connectorId}:${name}`;

const SELECT = `SELECT b.*, COALESCE(array_agg(k.name ORDER BY k.name) FILTER (WHERE k.name IS NOT NULL), '{}') AS credential_names
  FROM bindings b LEFT JOIN binding_credentials k
    ON k.owner_user_id = b.owner_user_id AND k.agent_profile_id = b.agent_profile_id AND k.connector_id = b.connector_id`;
const GROUP = 'GROUP BY b.owner_user_id, b.agent_profile_id, b.connector_id';

export class BindingRepository {
  constructor(
    private readonly kit: ServiceKit,
    private readonly keyring: Keyring,
  ) {}

  async upsert(owner: string, profile: string, connectorId: string, input: BindingInput): Promise<StoredBinding> {
    await this.kit.transaction(async (m) => {
      // A rebind re-activates a binding that had failed auth (new credentials are the usual reason).
      await sqlRows(
        m,
        `INSERT INTO bindings (owner_user_id, agent_profile_id, connector_id, config_overrides, allowed_endpoints, rate_limit_per_minute, status, status_reason)
         VALUES ($1, $2, $3, $4::jsonb, $5::text[], $6, $7, '')
         ON CONFLICT (owner_user_id, agent_profile_id, connector_id) DO UPDATE SET
           config_overrides = EXCLUDED.config_overrides, allowed_endpoints = EXCLUDED.allowed_endpoints,
           rate_limit_per_minute = EXCLUDED.rate_limit_per_minute, status = EXCLUDED.status, status_reason = '', updated_at = now()`,
        [owner, profile, connectorId, JSON.stringify(input.configOverrides), input.allowedEndpoints, input.rateLimitPerMinute, input.disabled ? 'disabled' : 'active'],
      );
      for (const [name, value] of Object.entries(input.credentials)) {
        await sqlRows(
          m,
          `INSERT INTO binding_credentials (owner_user_id, agent_profile_id, connector_id, name, ciphertext) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (owner_user_id, agent_profile_id, connector_id, name) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, updated_at = now()`,
          [owner, profile, connectorId, name, encryptSecret(value, this.keyring, bindingCredentialAad(owner, profile, connectorId, name))],
        );
      }
    });
    return (await this.get(owner, profile, connectorId))!;
  }

  async get(owner: string, profile: string, connectorId: string): Promise<StoredBinding | null> {
    const rows = await sqlRows(
      this.kit.db,
      `${SELECT} WHERE b.owner_user_id = $1 AND b.agent_profile_id = $2 AND b.connector_id = $3 ${GROUP}`,
      [owner, profile, connectorId],
    );
    return rows[0] ? toStored(rows[0]) : null;
  }

  async list(owner: string, profile: string): Promise<StoredBinding[]> {
    const rows = await sqlRows(
      this.kit.db,
      `${SELECT} WHERE b.owner_user_id = $1 AND ($2 = '' OR b.agent_profile_id = $2) ${GROUP} ORDER BY b.agent_profile_id, b.connector_id`,
      [owner, profile],
    );
    return rows.map(toStored);
  }

  async delete(owner: string, profile: string, connectorId: string): Promise<boolean> {
    const rows = await sqlRows(
      this.kit.db,
      'DELETE FROM bindings WHERE owner_user_id = $1 AND agent_profile_id = $2 AND connector_id = $3 RETURNING connector_id',
      [owner, profile, connectorId],
    );
    return rows.length > 0;
  }

  /**
   * Marks the binding `auth_failed` (seed §10: 401/403) and queues
   * `af.connector.<id>.binding.auth_failed` in the same transaction. Returns
   * false when the binding was not active (already marked, or disabled).
   */
  async markAuthFailed(owner: string, profile: string, connectorId: string, reason: string): Promise<boolean> {
    return this.kit.transaction(async (m, emit) => {
      const rows = await sqlRows(
        m,
        `UPDATE bindings SET status = 'auth_failed', status_reason = $4, updated_at = now()
          WHERE owner_user_id = $1 AND agent_profile_id = $2 AND connector_id = $3 AND status = 'active' RETURNING updated_at`,
        [owner, profile, connectorId, reason.slice(0, 500)],
      );
      const row = rows[0] as { updated_at: Date } | undefined;
      if (!row) return false;
      emit({
        subject: this.kit.subjects.connector(connectorId, 'binding.auth_failed'),
        msgId: `binding:${owner}:${profile}:${connectorId}:auth_failed:${row.updated_at.getTime()}`,
        payload: { type: 'binding.auth_failed', userId: owner, agentProfileId: profile, connectorId, reason: reason.slice(0, 500), at: row.updated_at.toISOString() },
      });
      return true;
    });
  }

  async credentials(owner: string, profile: string, connectorId: string): Promise<Record<string, string>> {
    const rows: Array<{ name: string; ciphertext: string }> = await sqlRows(
      this.kit.db,
      'SELECT name, ciphertext FROM binding_credentials WHERE owner_user_id = $1 AND agent_profile_id = $2 AND connector_id = $3',
      [owner, profile, connectorId],
    );
    const out: Record<string, string> = {};
    for (const r of rows) {
      try {
        out[r.name] = decryptSecret(r.ciphertext, this.keyring, bindingCredentialAad(owner, profile, connectorId, r.name));
      } catch {
        throw new AppError('FAILED_PRECONDITION', `credential ${r.name} of the binding of ${connectorId} to ${profile} cannot be decrypted with the configured keys`);
      }
    }
    return out;
  }
}

function toStored(r: Record<string, unknown>): StoredBinding {
  return {
    agentProfileId: String(r.agent_profile_id),
    connectorId: String(r.connector_id),
    configOverrides: (r.config_overrides as Record<string, unknown>) ?? {},
    allowedEndpoints: (r.allowed_endpoints as string[]) ?? [],
    rateLimitPerMinute: Number(r.rate_limit_per_minute),
    status: r.status as BindingStatus,
    statusReason: String(r.status_reason ?? ''),
    credentialNames: (r.credential_names as string[]) ?? [],
    updatedAt: r.updated_at as Date,
  };
}
