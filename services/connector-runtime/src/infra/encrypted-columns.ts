/**
 * Every column that holds an `encryptSecret` envelope, with the key columns
 * of its rows and the associated data the ciphertext is bound to. The
 * re-encrypt command walks this list, so a table with secrets that is not
 * listed here would silently stay under a retired key: add new ones here.
 */
import { bindingCredentialAad } from './binding.repository.js';
import { connectorCredentialAad } from './connector.repository.js';
import { oauthTokenAad } from './oauth-token.store.js';
import { pluginConfigAad } from './plugin.repository.js';
import { authorizationVerifierAad } from './user-connection.repository.js';

export interface EncryptedColumn {
  table: string;
  column: string;
  /** Primary-key columns, for keyset paging and the update. */
  keyColumns: string[];
  aad(row: Record<string, unknown>): string;
}

const s = (v: unknown) => String(v);

export const ENCRYPTED_COLUMNS: EncryptedColumn[] = [
  {
    table: 'connector_credentials',
    column: 'ciphertext',
    keyColumns: ['owner_user_id', 'connector_id', 'name'],
    aad: (r) => connectorCredentialAad(s(r.owner_user_id), s(r.connector_id), s(r.name)),
  },
  {
    table: 'binding_credentials',
    column: 'ciphertext',
    keyColumns: ['owner_user_id', 'agent_profile_id', 'connector_id', 'name'],
    aad: (r) => bindingCredentialAad(s(r.owner_user_id), s(r.agent_profile_id), s(r.connector_id), s(r.name)),
  },
  {
    table: 'oauth_tokens',
    column: 'ciphertext',
    keyColumns: ['cache_key'],
    aad: (r) => oauthTokenAad(s(r.cache_key)),
  },
  {
    table: 'agent_plugin_user_config',
    column: 'config_ciphertext',
    keyColumns: ['user_id', 'plugin_name'],
    aad: (r) => pluginConfigAad(s(r.user_id), s(r.plugin_name)),
  },
  {
    table: 'oauth_authorizations',
    column: 'verifier_ciphertext',
    keyColumns: ['nonce'],
    aad: (r) => authorizationVerifierAad(s(r.nonce)),
  },
];
