/**
 * `pnpm --filter @af/connector-runtime reencrypt` — rotate the credentials key.
 *
 *   CREDENTIALS_KEYS="k2:<new>,k1:<old>" DATABASE_URL=… node dist/reencrypt.js
 *
 * Re-encrypts every stored secret under the first key; prints progress to
 * stderr and a JSON summary to stdout; exits 1 when a secret could not be
 * decrypted with any configured key (those rows are listed by id, never by
 * value), 2 on bad configuration. Safe to run while the service is serving.
 */
import { ConfigError, loadConfig, openDatabase, parseKeyring, sqlRows } from '@af/service-kit';
import { z } from 'zod';
import { reencryptSecrets } from './app/reencrypt-secrets.js';
import { connectorRuntimeEnvSchema } from './config.js';
import { ENCRYPTED_COLUMNS } from './infra/encrypted-columns.js';
import { CONNECTOR_RUNTIME_MIGRATIONS } from './infra/migrations/index.js';

const envSchema = z.object({
  DATABASE_URL: connectorRuntimeEnvSchema.shape.DATABASE_URL,
  CREDENTIALS_KEYS: connectorRuntimeEnvSchema.shape.CREDENTIALS_KEYS,
});

async function main(): Promise<number> {
  let config: z.infer<typeof envSchema>;
  try {
    config = loadConfig(envSchema, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`reencrypt: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const keyring = parseKeyring(config.CREDENTIALS_KEYS);
  const db = await openDatabase({ url: config.DATABASE_URL, schema: 'connector_runtime', migrations: CONNECTOR_RUNTIME_MIGRATIONS, poolSize: 2 });
  try {
    process.stderr.write(`reencrypt: active key ${keyring.activeKid}; ${ENCRYPTED_COLUMNS.length} tables\n`);
    const reports = await reencryptSecrets((text, params) => sqlRows(db, text, params), keyring, ENCRYPTED_COLUMNS, {
      onProgress: (r) => process.stderr.write(`reencrypt: ${r.table}: ${r.scanned} scanned, ${r.reencrypted} re-encrypted, ${r.failed} failed\n`),
      onFailure: (table, key, reason) => process.stderr.write(`reencrypt: ${table} ${JSON.stringify(key)}: ${reason}\n`),
    });
    process.stdout.write(`${JSON.stringify({ activeKid: keyring.activeKid, tables: reports })}\n`);
    return reports.some((r) => r.failed > 0) ? 1 : 0;
  } finally {
    await db.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`reencrypt: ${(err as Error)?.message ?? String(err)}\n`);
    process.exit(1);
  },
);
