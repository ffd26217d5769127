/**
 * Ingests one version of a document: claim it (idempotent by version),
 * fetch its bytes, parse, describe, chunk, embed in batches (progress on the
 * document's status), write the vectors, then commit the chunks and mark it
 * indexed in one transaction. Anything the file itself gets wrong ends as
 * status `failed` with a code and a message naming the problem; transient
 * failures (the workspace unreachable) are thrown so the event is retried.
 */
import type { Logger } from '@af/service-kit';
import { chunkDocument } from '../domain/chunking.js';
import { extractiveDescription } from '../domain/describe.js';
import { yearsIn } from '../domain/query-analysis.js';
import type { DocumentIndexRepository } from '../infra/document-index.repository.js';
import type { Embedder, VectorStore } from '../infra/ports.js';
import { ParseError } from '../parsers/parse-error.js';
import { parseDocument } from '../parsers/parse-document.js';

export interface DocumentEvent {
  type: 'created' | 'updated' | 'deleted';
  documentId: string;
  ownerUserId: string;
  version: number;
  title: string;
  contentType: string;
  sizeBytes: number;
  folderPath: string;
}

/** Where the bytes come from (output-router's GetDocument in the service). */
export interface DocumentSource {
  content(owner: string, documentId: string, version: number): Promise<Uint8Array | undefined>;
}

export interface IngestSettings {
  maxBytes: number;
  chunkTokens: number;
  embedBatch: number;
}

export type IngestOutcome = 'indexed' | 'skipped' | 'failed' | 'deleted' | 'superseded';

export class IngestDocument {
  constructor(
    private readonly index: DocumentIndexRepository,
    private readonly source: DocumentSource,
    private readonly embedder: Embedder,
    private readonly vectors: VectorStore,
    private readonly settings: IngestSettings,
    private readonly log: Logger,
  ) {}

  async execute(e: DocumentEvent): Promise<IngestOutcome> {
    const owner = e.ownerUserId;
    if (e.type === 'deleted') {
      await this.index.remove(owner, e.documentId, e.version);
      await this.vectors.deleteDocument(owner, e.documentId);
      this.log.info({ documentId: e.documentId }, 'document removed from the index');
      return 'deleted';
    }
    const claimed = await this.index.claim(owner, e);
    if (!claimed) return 'skipped';
    const fail = async (code: string, message: string): Promise<IngestOutcome> => {
      await this.index.fail(owner, e.documentId, e.version, code, message);
      this.log.warn({ documentId: e.documentId, version: e.version, code, reason: message }, 'document not indexed');
      return 'failed';
    };
    if (e.sizeBytes > this.settings.maxBytes)
      return fail('too_large', `the file has ${e.sizeBytes} bytes, more than the indexing limit of ${this.settings.maxBytes} (DOCS_MAX_INGEST_BYTES)`);
    await this.index.progress(owner, e.documentId, e.version, { status: 'parsing', progress: 0.05 });
    const bytes = await this.source.content(owner, e.documentId, e.version);
    if (!bytes) return 'superseded';
    if (bytes.byteLength > this.settings.maxBytes)
      return fail('too_large', `the file has ${bytes.byteLength} bytes, more than the indexing limit of ${this.settings.maxBytes} (DOCS_MAX_INGEST_BYTES)`);
    let parsed;
    try {
      parsed = await parseDocument(bytes, e.contentType, e.title);
    } catch (err) {
      if (err instanceof ParseError) return fail(err.code, err.message);
      return fail('corrupt', `the file cannot be read: ${(err as Error)?.message ?? String(err)}`);
    }
    const chunks = chunkDocument(parsed.blocks, { targetTokens: this.settings.chunkTokens });
    const body = parsed.blocks.filter((b) => b.kind !== 'heading').map((b) => b.text).join('\n');
    const description = extractiveDescription(body);
    const children = chunks.filter((c) => c.kind === 'child');
    await this.index.progress(owner, e.documentId, e.version, { status: 'embedding', progress: 0.1, chunksTotal: children.length, chunksDone: 0 });
    const years = yearsIn(`${e.title}\n${body}`);
    // Replace, not merge: the previous version's vectors go before this version's arrive.
    await this.vectors.deleteDocument(owner, e.documentId);
    for (let i = 0; i < children.length; i += this.settings.embedBatch) {
      const part = children.slice(i, i + this.settings.embedBatch);
      // The title leads each embedded text: "the budget spreadsheet" questions match the file, not only its cells.
      const vecs = await this.embedder.embed(part.map((c) => `${parsed.title ?? e.title}\n${c.text}`));
      await this.vectors.upsert(
        owner,
        part.map((c, j) => ({
          id: `${e.documentId}:${e.version}:${c.ordinal}`,
          documentId: e.documentId,
          vector: vecs[j]!,
          payload: { format: parsed.format, section: c.section, page: c.page ?? null, years },
        })),
      );
      const done = Math.min(children.length, i + part.length);
      await this.index.progress(owner, e.documentId, e.version, {
        status: 'embedding',
        progress: 0.1 + 0.85 * (done / Math.max(1, children.length)),
        chunksDone: done,
      });
    }
    const committed = await this.index.commit(
      owner,
      e.documentId,
      e.version,
      { format: parsed.format, pageCount: parsed.pageCount, description, descriptionSource: 'extractive', years, embedder: this.embedder.name },
      chunks,
    );
    if (!committed) return 'superseded';
    this.log.info(
      { documentId: e.documentId, version: e.version, format: parsed.format, pages: parsed.pageCount, chunks: children.length, embedder: this.embedder.name, vectorStore: this.vectors.kind },
      'document indexed',
    );
    return 'indexed';
  }
}
