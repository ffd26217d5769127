import { endpointWriteReason, graphqlOperationKinds } from './endpoint-writes.js';
import type { ConnectorDefinition } from './connector-definition.schema.js';

const def = (type: string, endpoints: Record<string, Record<string, unknown>>) => ({ id: 'c', name: 'c', type, endpoints }) as unknown as ConnectorDefinition;

describe('endpointWriteReason', () => {
  it('lets rest_api GET and HEAD read; every other method may write', () => {
    const d = def('rest_api', { list: { method: 'GET' }, head: { method: 'HEAD' }, plain: {}, create: { method: 'POST' }, drop: { method: 'DELETE' }, put: { method: 'PUT' }, patch: { method: 'PATCH' } });
    expect(['list', 'head', 'plain'].map((e) => endpointWriteReason(d, e))).toEqual([null, null, null]);
    expect(endpointWriteReason(d, 'create')).toBe('it sends POST requests, which may change data');
    expect(['drop', 'put', 'patch'].map((e) => endpointWriteReason(d, e) !== null)).toEqual([true, true, true]);
  });

  it('lets GraphQL queries read and refuses mutations and subscriptions', () => {
    const d = def('graphql', {
      q: { query: 'query Issues($n: Int) { issues(first: $n) { id } }' },
      short: { query: '{ viewer { login } }' },
      m: { query: 'mutation Close($id: ID!) { closeIssue(id: $id) { ok } }' },
      s: { query: 'subscription { events { id } }' },
      pick: { query: 'query Read { a } mutation Write { b }', operation_name: 'Read' },
      pickWrite: { query: 'query Read { a } mutation Write { b }', operation_name: 'Write' },
      both: { query: 'query Read { a } mutation Write { b }' },
    });
    expect(['q', 'short', 'pick'].map((e) => endpointWriteReason(d, e))).toEqual([null, null, null]);
    expect(endpointWriteReason(d, 'm')).toBe('it runs a GraphQL mutation, which may change data');
    expect(endpointWriteReason(d, 's')).toBe('it runs a GraphQL subscription, which may change data');
    expect(endpointWriteReason(d, 'pickWrite')).toContain('mutation');
    expect(endpointWriteReason(d, 'both')).toContain('mutation');
  });

  it('reads database, web_scraper, rss_feed and file_parser endpoints; an existing_tool may act', () => {
    for (const type of ['database', 'web_scraper', 'rss_feed', 'file_parser']) expect(endpointWriteReason(def(type, { e: {} }), 'e')).toBeNull();
    expect(endpointWriteReason(def('existing_tool', { e: {} }), 'e')).toBe('it calls a plugin tool, which may act outside the run');
  });

  it('leaves an unknown endpoint to the call (which fails NOT_FOUND naming it)', () => {
    expect(endpointWriteReason(def('rest_api', { list: { method: 'POST' } }), 'nope')).toBeNull();
  });
});

describe('graphqlOperationKinds', () => {
  it('ignores comments, strings, fragments and nested braces', () => {
    const doc = `
      # mutation Evil { x }
      fragment F on Issue { id title }
      query Q($s: String = "mutation { no }") { search(q: $s) { ...F nodes { id } } }
    `;
    expect(graphqlOperationKinds(doc)).toEqual(['query']);
    expect(graphqlOperationKinds('"""mutation { x }""" query A { a }')).toEqual(['query']);
  });

  it('picks the named operation, and none when the name is not in the document', () => {
    expect(graphqlOperationKinds('query A { a } mutation B { b }', 'B')).toEqual(['mutation']);
    expect(graphqlOperationKinds('query A { a }', 'Nope')).toEqual([]);
  });
});
