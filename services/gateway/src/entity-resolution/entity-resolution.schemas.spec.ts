import { openApiDocument } from '../http/openapi.js';
import {
  AnalyzeBody,
  ListReviewsQuery,
  NeighbourhoodQuery,
  SearchQuery,
} from './entity-resolution.schemas.js';

describe('knowledge route schemas', () => {
  it('parse good queries and coerce numbers', () => {
    expect(ListReviewsQuery.parse({ status: 'pending', limit: '20' })).toEqual({
      status: 'pending',
      limit: 20,
    });
    expect(NeighbourhoodQuery.parse({ max_hops: '2' })).toEqual({ max_hops: 2 });
    expect(AnalyzeBody.parse({ algorithm: 'pagerank' })).toEqual({ algorithm: 'pagerank' });
  });
  it('refuse unknown statuses, fields and algorithms, naming the field', () => {
    expect(ListReviewsQuery.safeParse({ status: 'maybe' }).error?.issues[0]?.path).toEqual(['status']);
    expect(ListReviewsQuery.safeParse({ stat: 'pending' }).success).toBe(false);
    expect(AnalyzeBody.safeParse({ algorithm: 'telepathy' }).error?.issues[0]?.path).toEqual(['algorithm']);
    expect(SearchQuery.safeParse({ q: '  ' }).error?.issues[0]?.path).toEqual(['q']);
    expect(NeighbourhoodQuery.safeParse({ max_hops: '9' }).success).toBe(false);
  });
  it('are listed in the OpenAPI document with their success and conflict statuses', () => {
    const paths = openApiDocument().paths as Record<
      string,
      Record<string, { responses: Record<string, unknown> }>
    >;
    expect(Object.keys(paths['/api/agent-factory/entity-resolution/reverse/{id}']!.post!.responses)).toEqual(
      expect.arrayContaining(['200', '409']),
    );
    expect(paths['/api/agent-factory/graph/analyze']!.post!.responses).toHaveProperty('200');
  });
});
