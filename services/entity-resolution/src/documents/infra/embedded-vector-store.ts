/**
 * The embedded vector store (no server): vectors persisted in PostgreSQL
 * (`doc_vectors`, float32 bytes) and searched in memory with the
 * column-wise exact index, one per owner, loaded on first use. Each search
 * reads the owner's write generation (one primary-key row), so a replica
 * sees what another one indexed; its own writes update the cache in place.
 * With a scan pool the rows are held in shared memory and large indexes are
 * scanned by its worker threads, a slice each.
 */
import { sqlRows, type Queryable } from '@af/service-kit';
import { BruteForceIndex } from '../domain/vector-index.js';
import type { VectorScanPool } from './vector-scan-pool.js';
import { bumpGeneration, GenerationCache, readGeneration } from './generations.js';
import { chunkDocumentId, type VectorPoint, type VectorStore } from './ports.js';

const toBytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const fromBytes = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

export class EmbeddedVectorStore implements VectorStore {
  readonly kind = 'embedded';
  private readonly cache: GenerationCache<BruteForceIndex>;

  constructor(
    private readonly db: Queryable,
    maxOwnersCached = 64,
    private readonly pool?: VectorScanPool,
  ) {
    this.cache = new GenerationCache(maxOwnersCached);
  }

  private async load(owner: string): Promise<BruteForceIndex> {
    const generation = await readGeneration(this.db, owner, 'vectors');
    return this.cache.get(owner, generation, async () => {
      // Newest first: while documents are re-embedded with another embedder (another size), the
      // newest vectors say which size is current and the others stay out until they are replaced.
      const rows = await sqlRows(this.db, 'SELECT id, vector FROM doc_vectors WHERE owner_user_id = $1 ORDER BY seq DESC', [owner]);
      const dims = rows.length ? (rows[0].vector as Buffer).byteLength / 4 : 1;
      const index = new BruteForceIndex(dims, Math.max(16, rows.length), Boolean(this.pool));
      for (const r of rows) if ((r.vector as Buffer).byteLength === dims * 4) index.upsert(r.id, fromBytes(r.vector), chunkDocumentId(r.id));
      return index;
    });
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
    const generation = await bumpGeneration(this.db, owner, 'vectors');
    this.cache.applied(owner, generation, (index) => {
      // An empty owner's index was made with no dimensions known: reload it instead.
      if (points.some((p) => p.vector.length !== index.dimensions)) return false;
      for (const p of points) index.upsert(p.id, p.vector, p.documentId);
    });
  }

  async deleteDocument(owner: string, documentId: string): Promise<void> {
    const gone = await sqlRows(this.db, 'DELETE FROM doc_vectors WHERE owner_user_id = $1 AND document_id = $2 RETURNING id', [owner, documentId]);
    const generation = await bumpGeneration(this.db, owner, 'vectors');
    this.cache.applied(owner, generation, (index) => {
      for (const r of gone) index.remove(r.id);
    });
  }

  async search(owner: string, vector: Float32Array, k: number, documentIds?: readonly string[]) {
    const index = await this.load(owner);
    if (!index.size || index.dimensions !== vector.length) return [];
    return this.pool ? this.pool.search(index, vector, k, documentIds) : index.search(vector, k, documentIds);
  }
}
