/** The document actions agree with the Action I/O Registry, and refuse bad inputs up front naming the field. */
import { actionOwner, defaultActionRegistry } from '@af/plan';
import { parseDocumentEvent } from '../infra/document-events.consumer.js';
import { documentActions } from './document-actions.js';

const calls: unknown[] = [];
const fakeSearch = { execute: async (r: unknown) => (calls.push(r), { hits: [], analysis: { text: '', filters: {}, names: [], dates: [] }, confidence: 0 }) };
const handlers = documentActions(fakeSearch as never, 'offline-wordvec-v1');
const ctx = (action: string, inputs: unknown, params: unknown = {}) =>
  ({ action, inputs, params, principal: { userId: 'u1', teamIds: [] }, idempotencyKey: '', runId: '', nodeId: '', attempt: 1, signal: new AbortController().signal, deadline: 0 }) as never;
const run = (name: string, inputs: unknown, params?: unknown) => handlers.find((h) => h.name === name)!.execute(ctx(name, inputs, params));

it.each(handlers.map((h) => [h.name, h.sideEffects] as const))('%s: registered, owned by entity-resolution, side effects %s', (name, sideEffects) => {
  const registry = defaultActionRegistry();
  expect(registry.get(name)!.sideEffect === true).toBe(sideEffects);
  expect(actionOwner(name, registry)).toBe('entity-resolution');
});

it('searches as the principal with the parsed params', async () => {
  const out = await run('search_documents', { query: 'crane budget' }, { file_types: ['spreadsheet', 'md'], max_results: 3 });
  expect(calls.at(-1)).toEqual({ owner: 'u1', query: 'crane budget', maxResults: 3, mode: 'hybrid', formats: ['xlsx', 'csv', 'markdown'] });
  expect(out).toMatchObject({ documents: [], sources: [], count: 0, retrieval: { mode: 'hybrid', embedder: 'offline-wordvec-v1' } });
});

it.each([
  ['search_documents', { query: '  ' }, {}, 'inputs.query'],
  ['search_documents', { query: 'x' }, { mode: 'semantic' }, 'params.mode'],
  ['search_documents', { query: 'x' }, { max_results: 500 }, 'params.max_results'],
  ['search_documents', { query: 'x' }, { folder_id: 'f1' }, 'params.folder_id: the document index filters by folder path'],
  ['search_documents', { query: 'x' }, { file_types: ['exe'] }, 'params.file_types[0]'],
  ['find_file_by_vectors', { query: 'x', scope: 'team_docs' }, {}, 'inputs.scope: only "my_docs" is searchable'],
  ['find_file_by_vectors', { query: 'x', team_id: 't1' }, {}, 'inputs.team_id: team documents are not indexed'],
  ['find_file_by_vectors', { query: 'x' }, { min_score: 2 }, 'params.min_score'],
])('%s %j %j → INVALID_ARGUMENT naming %s', async (name, inputs, params, field) => {
  await expect(run(name, inputs, params)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(field) });
});

describe('parseDocumentEvent', () => {
  const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  it('reads output-router events and drops what it cannot act on', () => {
    const e = { type: 'updated', documentId: 'd1', ownerUserId: 'u1', version: 2, title: 'a.md', contentType: 'text/markdown', sizeBytes: 10, folderPath: '/x' };
    expect(parseDocumentEvent(enc(e))).toEqual(e);
    expect(parseDocumentEvent(enc({ ...e, version: 0 }))).toBeUndefined();
    expect(parseDocumentEvent(enc({ ...e, type: 'moved' }))).toBeUndefined();
    expect(parseDocumentEvent(enc({ ...e, ownerUserId: '' }))).toBeUndefined();
    expect(parseDocumentEvent(new TextEncoder().encode('{not json'))).toBeUndefined();
  });
});
