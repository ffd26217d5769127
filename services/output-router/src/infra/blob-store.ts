/**
 * Where file bytes live. The default keeps them in PostgreSQL (`blobs`,
 * bytea) so a document and its bytes commit in one transaction; another
 * store (S3) implements the same port.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sqlRows, type Queryable } from '@af/service-kit';

export interface BlobStore {
  /** Stores bytes; `q` is the transaction the caller writes its rows in (stores that can join one do). */
  put(content: Uint8Array, q?: Queryable): Promise<string>;
  get(key: string, q?: Queryable): Promise<Buffer>;
  delete(keys: string[], q?: Queryable): Promise<void>;
}

export class PgBlobStore implements BlobStore {
  constructor(private readonly db: Queryable) {}

  async put(content: Uint8Array, q: Queryable = this.db): Promise<string> {
    const id = randomUUID();
    const buf = Buffer.from(content);
    await sqlRows(q, 'INSERT INTO blobs (id, content, size_bytes, sha256) VALUES ($1, $2, $3, $4)', [
      id,
      buf,
      buf.byteLength,
      createHash('sha256').update(buf).digest('hex'),
    ]);
    return id;
  }

  async get(key: string, q: Queryable = this.db): Promise<Buffer> {
    const [row] = await sqlRows<{ content: Buffer }>(q, 'SELECT content FROM blobs WHERE id = $1', [key]);
    if (!row) throw new Error(`blob ${key} is missing`);
    return row.content;
  }

  async delete(keys: string[], q: Queryable = this.db): Promise<void> {
    if (keys.length) await sqlRows(q, 'DELETE FROM blobs WHERE id = ANY($1::uuid[])', [keys]);
  }
}
