/**
 * The embedded vector store (no server): vectors persisted in PostgreSQL
 * (`doc_vectors`, float32 bytes) and searched in memory with the brute-force
 * index, one per owner, loaded on first use. A cheap stamp (row count and
 * highest sequence of the owner's rows) is checked on each search, so a
 * replica sees what another one indexed; its own writes update the cache in
 * place.
 */
import { sqlRows, type Queryable } from '@af/service-kit';
import { BruteForceIndex } from '../domain/vector-index.js';
import { chunkDocumentId, type VectorPoint, type VectorStore } from './ports.js';

interface Cached {
  index: BruteForceIndex;
  stamp: string;
}

const toBytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const fromBytes = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

export class EmbeddedVectorStore implements VectorStore {
  readonly kind = 'embedded';
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly db: Queryable,
    private readonly maxOwnersCached = 64,
  ) {}

  private async stamp(owner: string): Promise<string> {
    const [r] = await sqlRows(this.db, 'SELECT count(*) AS n, coalesce(max(seq), 0) AS s FROM doc_vectors WHERE owner_user_id = $1', [owner]);
    return `${r.n}:${r.s}`;
  }

  private async load(owner: string): Promise<Cached> {
    const stamp = await this.stamp(owner);
    const hit = this.cache.get(owner);
    if (hit && hit.stamp === stamp) return hit;
    const rows = await sqlRows(this.db, 'SELECT id, vector FROM doc_vectors WHERE owner_user_id = $1', [owner]);
    const dims = rows.length ? (rows[0].vector as Buffer).byteLength / 4 : 1;
    const index = new BruteForceIndex(dims, Math.max(16, rows.length));
    for (const r of rows) index.upsert(r.id, fromBytes(r.vector));
    const entry = { index, stamp };
    this.cache.delete(owner);
    this.cache.set(owner, entry);
    if (this.cache.size > this.maxOwnersCached) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }

  async upsert(owner: string, points: VectorPoint[]): Promise<void> {
    if (!points.length) return;
    for (let i = 0; i < points.length; i += 500) {
      const part = points.slice(i, i + 500);
      const values: unknown[] = [];
      const rows = part.map((p, j) => {
        values.push(p.id, owner, p.documentId, toBytes(p.vector));
        return `($${j * 4 + 1}, $${j * 4 + 2}, $${j * 4 + 3}, $${j * 4 + 4})`;
      });
      await sqlRows(
        this.db,
        `INSERT INTO doc_vectors (id, owner_user_id, document_id, vector) VALUES ${rows.join(', ')}
         ON CONFLICT (id) DO UPDATE SET vector = excluded.vector, seq = nextval(pg_get_serial_sequence('doc_vectors', 'seq'))`,
        values,
      );
    }
    await this.refresh(owner, (index) => {
      for (const p of points) if (index.dimensions === p.vector.length) index.upsert(p.id, p.vector);
    });
  }

  async deleteDocument(owner: string, documentId: string): Promise<void> {
    const gone = await sqlRows(this.db, 'DELETE FROM doc_vectors WHERE owner_user_id = $1 AND document_id = $2 RETURNING id', [owner, documentId]);
    await this.refresh(owner, (index) => {
      for (const r of gone) index.remove(r.id);
    });
  }

  /** Applies a local write to the cached index when it was current before the write; otherwise drops it (reloaded on the next search). */
  private async refresh(owner: string, apply: (index: BruteForceIndex) => void): Promise<void> {
    const hit = this.cache.get(owner);
    if (!hit) return;
    apply(hit.index);
    const stamp = await this.stamp(owner);
    // Rows of other writers in between: the count will not match the cache; reload then.
    if (Number(stamp.split(':')[0]) !== hit.index.size) this.cache.delete(owner);
    else hit.stamp = stamp;
  }

  async search(owner: string, vector: Float32Array, k: number, documentIds?: readonly string[]) {
    const { index } = await this.load(owner);
    if (!index.size || index.dimensions !== vector.length) return [];
    const allowed = documentIds ? new Set(documentIds) : undefined;
    return index.search(vector, k, allowed ? (id) => allowed.has(chunkDocumentId(id)) : undefined);
  }
}
