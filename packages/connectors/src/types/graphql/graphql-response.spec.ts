import { classifyGraphqlErrors, describeGraphqlErrorBody, interpretGraphqlBody } from './graphql-response.js';
import { thrown } from '../../testing.js';

const where = { label: 'gh/repos', displayUrl: 'https://api.example.com/graphql' };
const endpoint = {
  response_mapping: { results_path: 'data.search.edges', fields: { name: 'node.name', stars: 'node.stars' } },
};
const paged = {
  ...endpoint,
  pagination: { page_info_path: 'data.search.pageInfo', cursor_variable: 'after', max_pages: 3 },
};
const json = (v: unknown) => JSON.stringify(v);


describe('interpretGraphqlBody', () => {
  it('maps data by results_path and fields', () => {
    const page = interpretGraphqlBody(
      json({ data: { search: { edges: [{ node: { name: 'a', stars: 3 } }, { node: { name: 'b' } }] } } }),
      endpoint,
      where,
    );

    expect(page).toEqual({
      result: {
        results: [
          { name: 'a', stars: 3 },
          { name: 'b', stars: null },
        ],
        count: 2,
      },
      hasNext: false,
    });
  });

  it('a request error (no "data" at all) is INVALID_ARGUMENT with the messages and locations', () => {
    const err = thrown(() =>
      interpretGraphqlBody(
        json({ errors: [{ message: 'Variable "$q" of required type "String!" was not provided.' }] }),
        endpoint,
        where,
      ),
    );

    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toBe(
      'gh/repos: the GraphQL endpoint answered with errors: Variable "$q" of required type "String!" was not provided.',
    );
  });

  it('"data": null with errors is UPSTREAM_ERROR', () => {
    const err = thrown(() =>
      interpretGraphqlBody(
        json({ data: null, errors: [{ message: 'boom', path: ['search'] }] }),
        endpoint,
        where,
      ),
    );

    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: false });
    expect(err.message).toContain('boom (at search)');
  });

  it('errors that nulled the records themselves are thrown, with the code the errors name (GitHub NOT_FOUND)', () => {
    const err = thrown(() =>
      interpretGraphqlBody(
        json({
          data: { search: null },
          errors: [
            {
              type: 'NOT_FOUND',
              path: ['search'],
              message: "Could not resolve to an Organization with the login of 'x'.",
            },
          ],
        }),
        endpoint,
        where,
      ),
    );

    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain('(nothing at results_path "data.search.edges")');
  });

  it('partial data: the records are returned and each error becomes a warning', () => {
    const page = interpretGraphqlBody(
      json({
        data: { search: { edges: [{ node: { name: 'a', stars: null } }] } },
        errors: [{ message: 'stars is unavailable', path: ['search', 'edges', 0, 'node', 'stars'] }],
      }),
      endpoint,
      where,
    );

    expect(page.result).toEqual({
      results: [{ name: 'a', stars: null }],
      count: 1,
      warnings: ['GraphQL error (at search.edges.0.node.stars): stars is unavailable'],
    });
  });

  it.each([
    ['not JSON', '<html>login</html>', 'is not valid JSON'],
    ['empty', '  ', 'is empty'],
    ['a list', '[1,2]', 'is not a GraphQL response'],
    ['an object without data or errors', '{"message":"hi"}', 'is not a GraphQL response'],
  ])('a malformed body (%s) gives no records and a warning', (_, body, warning) => {
    const page = interpretGraphqlBody(body, endpoint, where);

    expect(page.result).toEqual({ results: [], count: 0, warnings: [expect.stringContaining(warning)] });
    expect(page.hasNext).toBe(false);
  });

  it('reads pageInfo for pagination', () => {
    const body = { data: { search: { edges: [], pageInfo: { hasNextPage: true, endCursor: 'c2' } } } };

    expect(interpretGraphqlBody(json(body), paged, where)).toMatchObject({ hasNext: true, cursor: 'c2' });

    body.data.search.pageInfo = { hasNextPage: false, endCursor: '' };
    const last = interpretGraphqlBody(json(body), paged, where);
    expect(last.hasNext).toBe(false);
    expect(last.cursor).toBeUndefined();
  });

  it('warns when pageInfo is missing', () => {
    const page = interpretGraphqlBody(json({ data: { search: { edges: [] } } }), paged, where);

    expect(page.hasNext).toBe(false);
    expect(page.result.warnings).toEqual([
      'pagination.page_info_path "data.search.pageInfo" is not an object in the response; not paging',
    ]);
  });

  it('lists at most three errors and truncates long messages', () => {
    const errors = Array.from({ length: 5 }, (_, i) => ({ message: `${i}:${'x'.repeat(400)}` }));
    const err = thrown(() => interpretGraphqlBody(json({ errors }), endpoint, where));

    expect(err.message).toContain('(and 2 more)');
    expect(err.message).toContain(`0:${'x'.repeat(298)}…`);
    expect(err.message).not.toContain('3:');
  });
});

describe('classifyGraphqlErrors', () => {
  it.each([
    [{ extensions: { code: 'UNAUTHENTICATED' } }, 'AUTH_FAILED'],
    [{ type: 'FORBIDDEN' }, 'AUTH_FAILED'],
    [{ type: 'RATE_LIMITED' }, 'RATE_LIMIT'],
    [{ extensions: { code: 'NOT_FOUND' } }, 'NOT_FOUND'],
    [{ extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }, 'INVALID_ARGUMENT'],
    [{ extensions: { code: 'BAD_USER_INPUT' } }, 'INVALID_ARGUMENT'],
    [{ extensions: { code: 'SERVICE_UNAVAILABLE' } }, 'UNAVAILABLE'],
    [{ extensions: { code: 'INTERNAL_SERVER_ERROR' } }, 'UPSTREAM_ERROR'],
    [{ message: 'no code' }, 'UPSTREAM_ERROR'],
  ] as const)('%j → %s', (error, code) => {
    expect(classifyGraphqlErrors([error as Record<string, unknown>], 'UPSTREAM_ERROR')).toBe(code);
  });
});

describe('describeGraphqlErrorBody', () => {
  it('gives the GraphQL messages of an error body, or nothing for other bodies', () => {
    expect(describeGraphqlErrorBody(json({ errors: [{ message: 'Syntax Error: Unexpected Name' }] }))).toBe(
      'Syntax Error: Unexpected Name',
    );
    expect(describeGraphqlErrorBody('Bad Gateway')).toBeUndefined();
    expect(describeGraphqlErrorBody(json({ message: 'x' }))).toBeUndefined();
  });
});
