import { AppError, decryptSecret, encryptSecret, sqlRows, type Keyring, type ServiceKit } from '@af/service-kit';
import { oauthCacheKeyPrefix, userConnectionTokenKey, type ConnectorDefinition } from '@af/connectors';

export interface StoredConnector {
  ownerUserId: string;
  definition: ConnectorDefinition;
  credentialNames: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** Definitions kept parsed (by owner and id) before the oldest is dropped. */
export const MAX_CACHED_DEFINITIONS = 1000;

/**
 * The row without its jsonb: the definition comes as its text, which the
 * repository parses only when it differs from the text it last parsed.
 */
const COLUMNS = `c.owner_user_id, c.id, c.definition::text AS definition_text, c.created_at, c.updated_at,
  COALESCE(array_agg(k.name ORDER BY k.name) FILTER (WHERE k.name IS NOT NULL), '{}') AS credential_names`;

/** Binds a ciphertext to its row, so a blob copied to another row does not decrypt. */
export const connectorCredentialAad = (owner: string, connectorId: string, name: string) => `connector:${owner}:${connectorId}:${name}`;

export class ConnectorRepository {
  /**
   * The last parsed definition per connector with the text it came from. The
   * row is read on every call (an edit on any replica shows at once); an
   * unchanged text hands back the same object, so what is worked out once
   * per definition object (compiled request plans, limits) is not redone on
   * every call. Definitions are not changed once parsed.
   */
  private readonly parsed = new Map<string, { text: string; definition: ConnectorDefinition }>();

  constructor(
    private readonly kit: ServiceKit,
    private readonly keyring: Keyring,
  ) {}

  /**
   * Insert or replace a connector and its credentials (encrypted before they
   * reach SQL). `onlyIfNew`: insert only; when the owner already has a
   * connector with this id, nothing is written and `onlyIfNew()` is thrown —
   * decided by the insert itself, so two concurrent creations cannot both win.
   */
  async upsert(owner: string, def: ConnectorDefinition, credentials: Record<string, string>, options: { onlyIfNew?: () => Error } = {}): Promise<StoredConnector> {
    await this.kit.transaction(async (m) => {
      const inserted = await sqlRows(m, 
        `INSERT INTO connectors (owner_user_id, id, name, type, version, description, definition)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
         ON CONFLICT (owner_user_id, id) DO ${options.onlyIfNew ? 'NOTHING' : `UPDATE SET name = EXCLUDED.name, type = EXCLUDED.type, version = EXCLUDED.version,
           description = EXCLUDED.description, definition = EXCLUDED.definition, updated_at = now()`}
         RETURNING id`,
        [owner, def.id, def.name, def.type, def.version, def.description ?? '', JSON.stringify(def)],
      );
      if (inserted.length === 0 && options.onlyIfNew) throw options.onlyIfNew();
      for (const [name, value] of Object.entries(credentials)) {
        await sqlRows(m, 
          `INSERT INTO connector_credentials (owner_user_id, connector_id, name, ciphertext) VALUES ($1, $2, $3, $4)
           ON CONFLICT (owner_user_id, connector_id, name) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, updated_at = now()`,
          [owner, def.id, name, encryptSecret(value, this.keyring, connectorCredentialAad(owner, def.id, name))],
        );
      }
    });
    return (await this.get(owner, def.id))!;
  }

  async get(owner: string, id: string): Promise<StoredConnector | null> {
    const rows = await sqlRows(this.kit.db, 
      `SELECT ${COLUMNS}
         FROM connectors c LEFT JOIN connector_credentials k ON k.owner_user_id = c.owner_user_id AND k.connector_id = c.id
        WHERE c.owner_user_id = $1 AND c.id = $2 GROUP BY c.owner_user_id, c.id`,
      [owner, id],
    );
    return rows[0] ? this.toStored(rows[0]) : null;
  }

  async list(owner: string): Promise<StoredConnector[]> {
    const rows = await sqlRows(this.kit.db, 
      `SELECT ${COLUMNS}
         FROM connectors c LEFT JOIN connector_credentials k ON k.owner_user_id = c.owner_user_id AND k.connector_id = c.id
        WHERE c.owner_user_id = $1 GROUP BY c.owner_user_id, c.id ORDER BY c.id`,
      [owner],
    );
    return rows.map((r) => this.toStored(r));
  }

  /** Deletes a connector with its credentials, bindings and users' connections, and forgets its OAuth tokens. */
  async delete(owner: string, id: string): Promise<boolean> {
    return this.kit.transaction(async (m) => {
      const rows = await sqlRows(m, 'DELETE FROM connectors WHERE owner_user_id = $1 AND id = $2 RETURNING id', [owner, id]);
      if (rows.length === 0) return false;
      await sqlRows(m, 'DELETE FROM oauth_tokens WHERE starts_with(cache_key, $1) OR cache_key = $2', [
        oauthCacheKeyPrefix(owner, id),
        userConnectionTokenKey(owner, id),
      ]);
      return true;
    });
  }

  /** Decrypted credentials of one connector; only ever held in memory for a call. */
  async credentials(owner: string, id: string): Promise<Record<string, string>> {
    const rows: Array<{ name: string; ciphertext: string }> = await sqlRows(this.kit.db, 
      'SELECT name, ciphertext FROM connector_credentials WHERE owner_user_id = $1 AND connector_id = $2',
      [owner, id],
    );
    const out: Record<string, string> = {};
    for (const r of rows) {
      try {
        out[r.name] = decryptSecret(r.ciphertext, this.keyring, connectorCredentialAad(owner, id, r.name));
      } catch {
        throw new AppError('FAILED_PRECONDITION', `credential ${r.name} of connector ${id} cannot be decrypted with the configured keys`);
      }
    }
    return out;
  }

  private toStored(r: Record<string, unknown>): StoredConnector {
    const ownerUserId = String(r.owner_user_id);
    return {
      ownerUserId,
      definition: this.definitionOf(`${ownerUserId}\u0000${String(r.id)}`, String(r.definition_text)),
      credentialNames: (r.credential_names as string[]) ?? [],
      createdAt: r.created_at as Date,
      updatedAt: r.updated_at as Date,
    };
  }

  /** The parsed definition for `text`: the cached object while the stored text is unchanged. */
  private definitionOf(key: string, text: string): ConnectorDefinition {
    const cached = this.parsed.get(key);
    if (cached && cached.text === text) return cached.definition;
    const definition = JSON.parse(text) as ConnectorDefinition;
    if (!cached && this.parsed.size >= MAX_CACHED_DEFINITIONS) this.parsed.delete(this.parsed.keys().next().value as string);
    this.parsed.set(key, { text, definition });
    return definition;
  }
}
