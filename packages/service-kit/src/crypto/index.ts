/** Envelope encryption of credentials at rest (AES-256-GCM, key ids, rotation). */
export {
  DEFAULT_KEYRING_VARIABLE,
  KEY_BYTES,
  Keyring,
  KeyringConfigError,
  generateKeyBase64,
  parseKeyring,
} from './keyring.js';
export {
  SecretDecryptionError,
  decryptSecret,
  encryptSecret,
  isEncryptedSecret,
  needsReencrypt,
  reencryptSecret,
  type SecretErrorReason,
} from './secret-box.js';
