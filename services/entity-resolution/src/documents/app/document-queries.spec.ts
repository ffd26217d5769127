import { AppError } from '@af/service-kit';
import { DocumentQueries } from './document-queries.js';
import type { SearchDocuments, SearchRequest } from './search-documents.js';

const DOC = '11111111-1111-4111-8111-111111111111';
const hit = {
  chunkId: 'c1',
  documentId: DOC,
  title: 'ops-notes.md',
  folderPath: '/',
  format: 'markdown',
  snippet: 'serviced every 90 days',
  text: 'Harbour cranes\nserviced every 90 days',
  section: 'Harbour cranes',
  page: null,
  pageEnd: null,
  parentText: null,
  score: 0.03,
  denseScore: 0.5,
  bm25Rank: 1,
  denseRank: 1,
  confidence: 0.8,
};

function queries() {
  const asked: SearchRequest[] = [];
  const search = {
    execute: async (r: SearchRequest) => {
      asked.push(r);
      return { hits: r.owner === 'alice' ? [hit] : [], analysis: { text: r.query, filters: {}, names: [], dates: [] }, confidence: r.owner === 'alice' ? 0.8 : 0 };
    },
  } as unknown as SearchDocuments;
  const rows = new Map([[`alice:${DOC}`, { documentId: DOC, status: 'indexed' }]]);
  const index = { get: async (owner: string, id: string) => rows.get(`${owner}:${id}`) as never };
  return { q: new DocumentQueries(search, index, 'offline-hashed-test'), asked };
}

const fieldOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return [(err as AppError).code, (err as AppError).violations?.[0]?.field];
};

describe('DocumentQueries', () => {
  it("searches the caller's own documents and names the embedder", async () => {
    const { q, asked } = queries();
    const out = await q.searchDocuments('alice', { query: 'crane interval', top_k: 3, filters: { file_types: ['md'], mode: 'bm25' } });
    expect(asked[0]).toMatchObject({ owner: 'alice', query: 'crane interval', maxResults: 3, mode: 'bm25', formats: ['markdown'] });
    expect(out).toMatchObject({ embedder: 'offline-hashed-test', mode: 'bm25', confidence: 0.8 });
    expect(out.hits[0]).toEqual({
      rank: 1,
      document_id: DOC,
      file: 'ops-notes.md',
      chunk_id: 'c1',
      page: null,
      page_end: null,
      section: 'Harbour cranes',
      text: hit.text,
      snippet: hit.snippet,
      score: 0.03,
      confidence: 0.8,
      file_type: 'markdown',
      folder_path: '/',
    });
    expect((await q.searchDocuments('bob', { query: 'crane interval' })).hits).toEqual([]);
    expect(asked[1]).toMatchObject({ owner: 'bob', maxResults: 8, mode: 'hybrid' });
  });

  it('names the field of bad input', async () => {
    const { q } = queries();
    expect(await fieldOf(q.searchDocuments('alice', { query: '  ' }))).toEqual(['INVALID_ARGUMENT', 'query']);
    expect(await fieldOf(q.searchDocuments('alice', { query: 'x', top_k: 0 }))).toEqual(['INVALID_ARGUMENT', 'top_k']);
    expect(await fieldOf(q.searchDocuments('alice', { query: 'x', top_k: 51 }))).toEqual(['INVALID_ARGUMENT', 'top_k']);
    expect(await fieldOf(q.searchDocuments('alice', { query: 'x', filters: { file_types: ['exe'] } }))).toEqual(['INVALID_ARGUMENT', 'filters.file_types[0]']);
    expect(await fieldOf(q.searchDocuments('alice', { query: 'x', filters: { colour: 'red' } }))).toEqual(['INVALID_ARGUMENT', 'filters']);
    expect(await fieldOf(q.searchDocuments('alice', { query: 'x', filters: { folder_id: 'f1' } }))).toEqual(['INVALID_ARGUMENT', 'filters.folder_id']);
  });

  it("answers the status of the caller's document; another user's or an unknown one is NOT_FOUND", async () => {
    const { q } = queries();
    expect(await q.documentIndex('alice', DOC)).toMatchObject({ status: 'indexed' });
    await expect(q.documentIndex('bob', DOC)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(q.documentIndex('alice', '22222222-2222-4222-8222-222222222222')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await fieldOf(q.documentIndex('alice', 'nope'))).toEqual(['INVALID_ARGUMENT', 'document_id']);
  });
});
