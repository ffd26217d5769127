/**
 * Qdrant through @qdrant/js-client-rest: one collection per user
 * (`<prefix>_<sha256(owner)[:24]>`, cosine), payload indexes on document_id,
 * format, section and years, and every search filtered by document when the
 * caller restricts it. Point ids are UUIDs derived from the chunk id (Qdrant
 * accepts only UUIDs or integers); the chunk id travels in the payload.
 */
import { createHash } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import type { VectorPoint, VectorStore } from './ports.js';

const uuidOf = (s: string) => {
  const h = createHash('sha256').update(s).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

export class QdrantVectorStore implements VectorStore {
  readonly kind = 'qdrant';
  private readonly client: QdrantClient;
  private readonly ready = new Map<string, Promise<void>>();

  constructor(
    url: string,
    private readonly prefix = 'af_docs',
    apiKey?: string,
  ) {
    this.client = new QdrantClient({ url, ...(apiKey ? { apiKey } : {}), checkCompatibility: false });
  }

  collection(owner: string): string {
    return `${this.prefix}_${createHash('sha256').update(owner).digest('hex').slice(0, 24)}`;
  }

  private ensure(owner: string, dims: number): Promise<void> {
    const name = this.collection(owner);
    let p = this.ready.get(name);
    if (!p) {
      p = (async () => {
        const { exists } = await this.client.collectionExists(name);
        if (!exists) {
          await this.client.createCollection(name, { vectors: { size: dims, distance: 'Cosine' } });
          for (const [field, schema] of [
            ['document_id', 'keyword'],
            ['format', 'keyword'],
            ['section', 'keyword'],
            ['years', 'integer'],
          ] as const)
            await this.client.createPayloadIndex(name, { field_name: field, field_schema: schema, wait: true });
        }
      })();
      p.catch(() => this.ready.delete(name));
      this.ready.set(name, p);
    }
    return p;
  }

  async upsert(owner: string, points: VectorPoint[]): Promise<void> {
    if (!points.length) return;
    await this.ensure(owner, points[0]!.vector.length);
    for (let i = 0; i < points.length; i += 256)
      await this.client.upsert(this.collection(owner), {
        wait: true,
        points: points.slice(i, i + 256).map((p) => ({
          id: uuidOf(p.id),
          vector: Array.from(p.vector),
          payload: { chunk_id: p.id, document_id: p.documentId, ...p.payload },
        })),
      });
  }

  async deleteDocument(owner: string, documentId: string): Promise<void> {
    const name = this.collection(owner);
    const { exists } = await this.client.collectionExists(name);
    if (!exists) return;
    await this.client.delete(name, { wait: true, filter: { must: [{ key: 'document_id', match: { value: documentId } }] } });
  }

  async search(owner: string, vector: Float32Array, k: number, documentIds?: readonly string[]) {
    const name = this.collection(owner);
    const { exists } = await this.client.collectionExists(name);
    if (!exists) return [];
    if (documentIds && !documentIds.length) return [];
    const { points } = await this.client.query(name, {
      query: Array.from(vector),
      limit: k,
      with_payload: ['chunk_id'],
      ...(documentIds ? { filter: { must: [{ key: 'document_id', match: { any: [...documentIds] } }] } } : {}),
    });
    return points.map((h) => ({ id: String((h.payload as { chunk_id: string }).chunk_id), score: h.score }));
  }
}
