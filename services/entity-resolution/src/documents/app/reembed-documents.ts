/**
 * Brings the vectors of documents indexed by another embedder up to date
 * (the configured embedder changed, e.g. from `offline-hashed-ngram-v1` to
 * `offline-wordvec-v1`): their stored child chunks are embedded again with
 * the configured one (the document's title leading each text, as ingestion
 * does) and replace the old vectors; the document's `embedder` then names
 * the new one. No source file is fetched: the chunks are in PostgreSQL.
 * Runs off the request path at start-up, a document at a time; until a
 * document is done its old vectors are not searched (another embedder's
 * space, and another size), BM25 still finds it. A document re-ingested
 * or deleted meanwhile is left to that newer write.
 */
import type { Logger } from '@af/service-kit';
import type { DocumentIndexRepository } from '../infra/document-index.repository.js';
import type { Embedder, VectorStore } from '../infra/ports.js';

export interface ReembedOutcome {
  documents: number;
  chunks: number;
  failed: number;
}

export class ReembedDocuments {
  constructor(
    private readonly index: DocumentIndexRepository,
    private readonly embedder: Embedder,
    private readonly vectors: VectorStore,
    private readonly log: Logger,
    private readonly batch = 64,
  ) {}

  async execute(stop?: AbortSignal): Promise<ReembedOutcome> {
    const out: ReembedOutcome = { documents: 0, chunks: 0, failed: 0 };
    const failed = new Set<string>();
    for (;;) {
      const stale = (await this.index.staleEmbeddings(this.embedder.name, 50 + failed.size)).filter((d) => !failed.has(`${d.owner}/${d.documentId}`));
      if (!stale.length || stop?.aborted) break;
      for (const d of stale) {
        if (stop?.aborted) break;
        try {
          const chunks = await this.index.childChunks(d.owner, d.documentId, d.version);
          const points = [];
          for (let i = 0; i < chunks.length; i += this.batch) {
            const part = chunks.slice(i, i + this.batch);
            const vecs = await this.embedder.embed(part.map((c) => `${d.title}\n${c.text}`));
            points.push(
              ...part.map((c, j) => ({
                id: `${d.documentId}:${d.version}:${c.ordinal}`,
                documentId: d.documentId,
                vector: vecs[j]!,
                payload: { format: d.format, section: c.section, page: c.page, years: d.years },
              })),
            );
          }
          // Same chunk ids as the old vectors: the upsert replaces them in place.
          await this.vectors.upsert(d.owner, points);
          if (await this.index.setEmbedder(d.owner, d.documentId, d.version, this.embedder.name)) {
            out.documents++;
            out.chunks += points.length;
          }
        } catch (err) {
          failed.add(`${d.owner}/${d.documentId}`);
          out.failed++;
          this.log.error(
            { documentId: d.documentId, from: d.embedder, to: this.embedder.name, vectorStore: this.vectors.kind, reason: (err as Error)?.message ?? String(err) },
            'document not re-embedded: its dense vectors stay out of search until it is re-ingested',
          );
        }
      }
    }
    if (out.documents || out.failed) this.log.info({ embedder: this.embedder.name, ...out }, 'documents re-embedded with the configured embedder');
    return out;
  }
}
