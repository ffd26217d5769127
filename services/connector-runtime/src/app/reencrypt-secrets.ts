/**
 * Key rotation: re-encrypts every stored secret that is not under the active
 * key of the keyring (`CREDENTIALS_KEYS`, new key first, old keys after it).
 * Rows are read in keyset-paged batches and each is updated only if its
 * ciphertext is still the one read (a concurrent write wins), so the command
 * is safe to run while the service is serving and safe to run again.
 */
import { needsReencrypt, reencryptSecret, type Keyring } from '@af/service-kit';
import type { EncryptedColumn } from '../infra/encrypted-columns.js';

/** Runs one SQL statement; rows come back as plain objects. */
export type Sql = (text: string, params: unknown[]) => Promise<Array<Record<string, unknown>>>;

export interface ReencryptReport {
  table: string;
  scanned: number;
  reencrypted: number;
  /** Rows whose secret no configured key opens (their ids are logged, never the values). */
  failed: number;
  /** Rows changed by someone else between read and write (left as they are). */
  skipped: number;
}

export interface ReencryptOptions {
  batchSize?: number;
  /** Called after each batch. */
  onProgress?: (report: ReencryptReport) => void;
  /** Called for each row that cannot be decrypted, with its key columns. */
  onFailure?: (table: string, key: Record<string, unknown>, reason: string) => void;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

export async function reencryptSecrets(sql: Sql, keyring: Keyring, columns: readonly EncryptedColumn[], options: ReencryptOptions = {}): Promise<ReencryptReport[]> {
  const batchSize = options.batchSize ?? 500;
  const reports: ReencryptReport[] = [];
  for (const col of columns) {
    for (const ident of [col.table, col.column, ...col.keyColumns]) {
      if (!IDENT.test(ident)) throw new Error(`encrypted column list: "${ident}" is not a plain SQL identifier`);
    }
    const report: ReencryptReport = { table: col.table, scanned: 0, reencrypted: 0, failed: 0, skipped: 0 };
    const keys = col.keyColumns.join(', ');
    let after: unknown[] | undefined;
    for (;;) {
      const where = after ? `WHERE (${keys}) > (${col.keyColumns.map((_, i) => `$${i + 2}`).join(', ')})` : '';
      const rows = await sql(`SELECT ${keys}, ${col.column} AS blob FROM ${col.table} ${where} ORDER BY ${keys} LIMIT $1`, [batchSize, ...(after ?? [])]);
      if (rows.length === 0) break;
      for (const row of rows) {
        report.scanned++;
        const blob = String(row.blob);
        const key = Object.fromEntries(col.keyColumns.map((k) => [k, row[k]]));
        let fresh: string;
        try {
          if (!needsReencrypt(blob, keyring)) continue;
          fresh = reencryptSecret(blob, keyring, col.aad(row));
        } catch (err) {
          report.failed++;
          options.onFailure?.(col.table, key, (err as Error).message);
          continue;
        }
        const match = col.keyColumns.map((k, i) => `${k} = $${i + 3}`).join(' AND ');
        const updated = await sql(`UPDATE ${col.table} SET ${col.column} = $1 WHERE ${col.column} = $2 AND ${match} RETURNING 1 AS ok`, [fresh, blob, ...col.keyColumns.map((k) => row[k])]);
        if (updated.length > 0) report.reencrypted++;
        else report.skipped++;
      }
      after = col.keyColumns.map((k) => rows[rows.length - 1]![k]);
      options.onProgress?.({ ...report });
      if (rows.length < batchSize) break;
    }
    reports.push(report);
  }
  return reports;
}
