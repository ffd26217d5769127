import { createPaginator, nextLink, parseLinkHeader, type FetchedPage } from './pagination.js';

const ORIGIN = 'https://api.acme.test';
const page = (records: number, body: unknown = {}, headers: FetchedPage['headers'] = {}): FetchedPage => ({
  records,
  body,
  headers,
  requestUrl: `${ORIGIN}/v1/items?page=1`,
});

describe('page_number', () => {
  it('starts at start_page (default 1) and counts up, sending the page size each time', () => {
    const p = createPaginator({ type: 'page_number', page_size_param: 'per_page', page_size: 2 }, ORIGIN);
    expect(p.first()).toEqual({
      query: [
        ['page', '1'],
        ['per_page', '2'],
      ],
    });
    expect(p.next(page(2))).toEqual({
      kind: 'next',
      overrides: {
        query: [
          ['page', '2'],
          ['per_page', '2'],
        ],
      },
    });
    expect(p.next(page(2))).toEqual({
      kind: 'next',
      overrides: {
        query: [
          ['page', '3'],
          ['per_page', '2'],
        ],
      },
    });
  });

  it('uses page_param and start_page, and injects numbers into the body when asked', () => {
    const p = createPaginator(
      { type: 'page_number', page_param: 'p', start_page: 0, inject_into: 'body' },
      ORIGIN,
    );
    expect(p.first()).toEqual({ body: { p: 0 } });
    expect(p.next(page(5))).toEqual({ kind: 'next', overrides: { body: { p: 1 } } });
  });

  it('stops on an empty page', () => {
    expect(createPaginator({ type: 'page_number' }, ORIGIN).next(page(0))).toEqual({ kind: 'done' });
  });

  it('stops on fewer records than the page size', () => {
    const p = createPaginator({ type: 'page_number', page_size_param: 'n', page_size: 10 }, ORIGIN);
    expect(p.next(page(9)).kind).toBe('done');
  });

  it('without a page size, a short page does not stop it', () => {
    expect(createPaginator({ type: 'page_number' }, ORIGIN).next(page(1)).kind).toBe('next');
  });

  it('stops when has_more_path is not true (false, "false" or missing)', () => {
    const p = () => createPaginator({ type: 'page_number', has_more_path: 'meta.more' }, ORIGIN);
    expect(p().next(page(3, { meta: { more: true } })).kind).toBe('next');
    expect(p().next(page(3, { meta: { more: 'true' } })).kind).toBe('next');
    expect(p().next(page(3, { meta: { more: false } })).kind).toBe('done');
    expect(p().next(page(3, { meta: { more: 'false' } })).kind).toBe('done');
    expect(p().next(page(3, { meta: {} })).kind).toBe('done');
  });

  it('stops once the records fetched reach total_path (number or numeric string); ignores a bad total', () => {
    const p = createPaginator({ type: 'page_number', total_path: 'total' }, ORIGIN);
    expect(p.next(page(3, { total: '5' })).kind).toBe('next');
    expect(p.next(page(2, { total: 5 })).kind).toBe('done');
    const q = createPaginator({ type: 'page_number', total_path: 'total' }, ORIGIN);
    expect(q.next(page(3, { total: 'many' })).kind).toBe('next');
    expect(q.next(page(3, {})).kind).toBe('next');
  });

  it('defaults max_pages to 10 and keeps a given one', () => {
    expect(createPaginator({ type: 'page_number' }, ORIGIN).maxPages).toBe(10);
    expect(createPaginator({ type: 'page_number', max_pages: 1000 }, ORIGIN).maxPages).toBe(1000);
    // The schema refuses more; the paginator still never goes past the hard cap.
    expect(createPaginator({ type: 'page_number', max_pages: 5000 }, ORIGIN).maxPages).toBe(1000);
  });
});

describe('offset', () => {
  it('starts at 0 and advances by limit, sending limit every time', () => {
    const p = createPaginator({ type: 'offset', limit: 3 }, ORIGIN);
    expect(p.first()).toEqual({
      query: [
        ['offset', '0'],
        ['limit', '3'],
      ],
    });
    expect(p.next(page(3))).toEqual({
      kind: 'next',
      overrides: {
        query: [
          ['offset', '3'],
          ['limit', '3'],
        ],
      },
    });
    expect(p.next(page(3))).toEqual({
      kind: 'next',
      overrides: {
        query: [
          ['offset', '6'],
          ['limit', '3'],
        ],
      },
    });
  });

  it('uses offset_param and limit_param', () => {
    const p = createPaginator(
      { type: 'offset', offset_param: 'skip', limit_param: 'take', limit: 50 },
      ORIGIN,
    );
    expect(p.first()).toEqual({
      query: [
        ['skip', '0'],
        ['take', '50'],
      ],
    });
  });

  it('stops on a short page, an empty page, or the total', () => {
    expect(createPaginator({ type: 'offset', limit: 3 }, ORIGIN).next(page(2)).kind).toBe('done');
    expect(createPaginator({ type: 'offset', limit: 3 }, ORIGIN).next(page(0)).kind).toBe('done');
    const p = createPaginator({ type: 'offset', limit: 3, total_path: 'meta.total' }, ORIGIN);
    expect(p.next(page(3, { meta: { total: 6 } })).kind).toBe('next');
    expect(p.next(page(3, { meta: { total: 6 } })).kind).toBe('done');
  });
});

describe('cursor', () => {
  const cursor = (extra: Record<string, unknown> = {}) =>
    createPaginator(
      { type: 'cursor', cursor_param: 'after', next_cursor_path: 'meta.next', ...extra },
      ORIGIN,
    );

  it('sends no cursor first, then the one from the body (numbers as text)', () => {
    const p = cursor({ page_size_param: 'limit', page_size: 2 });
    expect(p.first()).toEqual({ query: [['limit', '2']] });
    expect(p.next(page(2, { meta: { next: 'c2' } }))).toEqual({
      kind: 'next',
      overrides: {
        query: [
          ['after', 'c2'],
          ['limit', '2'],
        ],
      },
    });
    expect(p.next(page(2, { meta: { next: 17 } }))).toEqual({
      kind: 'next',
      overrides: {
        query: [
          ['after', '17'],
          ['limit', '2'],
        ],
      },
    });
  });

  it.each([[undefined], [null], [''], [{ a: 1 }], [Number.NaN]])(
    'stops when the next cursor is %p',
    (next) => {
      expect(cursor().next(page(1, { meta: { next } }))).toEqual({ kind: 'done' });
    },
  );

  it('stops when has_more_path says no, even with a cursor', () => {
    expect(
      cursor({ has_more_path: 'meta.more' }).next(page(1, { meta: { next: 'x', more: false } })).kind,
    ).toBe('done');
  });

  it('stops with a warning when the upstream repeats a cursor', () => {
    const p = cursor();
    expect(p.next(page(1, { meta: { next: 'a' } })).kind).toBe('next');
    expect(p.next(page(1, { meta: { next: 'b' } })).kind).toBe('next');
    expect(p.next(page(1, { meta: { next: 'a' } }))).toEqual({
      kind: 'stopped',
      warning: expect.stringContaining('already returned'),
    });
  });

  it('puts the cursor into the body with inject_into: body', () => {
    const p = cursor({ inject_into: 'body' });
    expect(p.first()).toEqual({ body: {} });
    expect(p.next(page(1, { meta: { next: 'n' } }))).toEqual({
      kind: 'next',
      overrides: { body: { after: 'n' } },
    });
  });
});

describe('link_header', () => {
  const link = (extra: Record<string, unknown> = {}) =>
    createPaginator({ type: 'link_header', ...extra }, ORIGIN);

  it('first sends the page size; then follows rel="next", resolving relative links', () => {
    const p = link({ page_size_param: 'per_page', page_size: 2 });
    expect(p.first()).toEqual({ query: [['per_page', '2']] });
    expect(p.next(page(2, {}, { link: '<https://api.acme.test/v1/items?page=2>; rel="next"' }))).toEqual({
      kind: 'next',
      overrides: { url: 'https://api.acme.test/v1/items?page=2' },
    });
    expect(p.next(page(2, {}, { link: '</v1/items?page=3#top>; rel=next' }))).toEqual({
      kind: 'next',
      overrides: { url: 'https://api.acme.test/v1/items?page=3' },
    });
  });

  it('is done without a next link', () => {
    expect(link().next(page(2, {}, { link: '<https://api.acme.test/v1/items?page=1>; rel="prev"' }))).toEqual(
      {
        kind: 'done',
      },
    );
    expect(link().next(page(2, {}, {}))).toEqual({ kind: 'done' });
  });

  it('refuses to follow a link to another origin (scheme, host or port), or one with credentials', () => {
    for (const target of [
      'https://evil.test/v1/items?page=2',
      'http://api.acme.test/v1/items?page=2',
      'https://api.acme.test:8443/v1/items?page=2',
      'https://u:p@api.acme.test/v1/items?page=2',
    ]) {
      expect(link().next(page(1, {}, { link: `<${target}>; rel="next"` }))).toEqual({
        kind: 'stopped',
        warning: expect.stringContaining('points away from https://api.acme.test'),
      });
    }
  });

  it('stops with a warning on a link it already followed', () => {
    const p = link();
    const headers = { link: '<https://api.acme.test/v1/items?page=2>; rel="next"' };
    expect(p.next(page(1, {}, headers)).kind).toBe('next');
    expect(p.next(page(1, {}, headers))).toEqual({
      kind: 'stopped',
      warning: expect.stringContaining('repeats'),
    });
  });

  it('still stops on an empty page or has_more_path false although a next link is present', () => {
    const headers = { link: '<https://api.acme.test/v1/items?page=2>; rel="next"' };
    expect(link().next(page(0, {}, headers)).kind).toBe('done');
    expect(link({ has_more_path: 'more' }).next(page(3, { more: false }, headers)).kind).toBe('done');
  });

  it('keeps a body-injected page size on every page', () => {
    const p = link({ page_size_param: 'size', page_size: 5, inject_into: 'body' });
    expect(p.first()).toEqual({ body: { size: 5 } });
    expect(p.next(page(5, {}, { link: '</v1/items?page=2>; rel="next"' }))).toEqual({
      kind: 'next',
      overrides: { url: 'https://api.acme.test/v1/items?page=2', body: { size: 5 } },
    });
  });
});

describe('next_url', () => {
  const nextUrl = (extra: Record<string, unknown> = {}) =>
    createPaginator({ type: 'next_url', next_url_path: 'next', ...extra }, ORIGIN);

  it('first sends the page size; then follows the URL at next_url_path, resolving a relative one', () => {
    const p = nextUrl({ page_size_param: 'page_size', page_size: 2 });
    expect(p.type).toBe('next_url');
    expect(p.first()).toEqual({ query: [['page_size', '2']] });
    expect(p.next(page(2, { next: 'https://api.acme.test/v1/items?cursor=abc&page_size=2' }))).toEqual({
      kind: 'next',
      overrides: { url: 'https://api.acme.test/v1/items?cursor=abc&page_size=2' },
    });
    expect(p.next(page(2, { next: '/v1/items?cursor=def#x' }))).toEqual({
      kind: 'next',
      overrides: { url: 'https://api.acme.test/v1/items?cursor=def' },
    });
  });

  it('reads a nested path', () => {
    const p = nextUrl({ next_url_path: 'links.next' });
    expect(p.next(page(1, { links: { next: 'https://api.acme.test/v1/items?p=2' } }))).toMatchObject({
      kind: 'next',
    });
  });

  it.each([[null], [''], ['   '], [42], [{ href: 'x' }], [undefined]])(
    'is done when the next URL is %j',
    (next) => {
      expect(nextUrl().next(page(2, { next }))).toEqual({ kind: 'done' });
    },
  );

  it('refuses to follow a URL to another origin or with credentials, and stops on one that is not a URL', () => {
    for (const target of [
      'https://evil.test/v1/items?page=2',
      'http://api.acme.test/v1/items?page=2',
      'https://api.acme.test:8443/v1/items?page=2',
      'https://u:p@api.acme.test/v1/items?page=2',
      'javascript:alert(1)',
    ]) {
      expect(nextUrl().next(page(1, { next: target }))).toEqual({
        kind: 'stopped',
        warning:
          'stopped paging: the next-page URL (at next) points away from https://api.acme.test and is not followed',
      });
    }
    expect(nextUrl().next(page(1, { next: 'http://[' }))).toEqual({
      kind: 'stopped',
      warning: 'stopped paging: the next-page URL (at next) is not a valid URL',
    });
  });

  it('stops with a warning on a URL it already followed (fragments ignored)', () => {
    const p = nextUrl();
    expect(p.next(page(1, { next: 'https://api.acme.test/v1/items?c=2' })).kind).toBe('next');
    expect(p.next(page(1, { next: 'https://api.acme.test/v1/items?c=2#again' }))).toEqual({
      kind: 'stopped',
      warning: 'stopped paging: the next-page URL (at next) repeats an earlier page',
    });
  });

  it('still stops on an empty page, has_more_path false or total_path reached although a next URL is present', () => {
    const next = 'https://api.acme.test/v1/items?c=2';
    expect(nextUrl().next(page(0, { next }))).toEqual({ kind: 'done' });
    expect(nextUrl({ has_more_path: 'more' }).next(page(2, { next, more: false }))).toEqual({ kind: 'done' });
    expect(nextUrl({ total_path: 'count' }).next(page(2, { next, count: 2 }))).toEqual({ kind: 'done' });
  });

  it('keeps a body-injected page size on every page', () => {
    const p = nextUrl({ inject_into: 'body', page_size_param: 'size', page_size: 5 });
    expect(p.first()).toEqual({ body: { size: 5 } });
    expect(p.next(page(5, { next: 'https://api.acme.test/v1/search?c=2' }))).toEqual({
      kind: 'next',
      overrides: { url: 'https://api.acme.test/v1/search?c=2', body: { size: 5 } },
    });
  });
});

describe('parseLinkHeader / nextLink (RFC 8288)', () => {
  it('parses GitHub-style headers with several links', () => {
    const header =
      '<https://api.github.com/repos/o/r/issues?page=2>; rel="next", <https://api.github.com/repos/o/r/issues?page=5>; rel="last"';
    expect(parseLinkHeader(header)).toEqual([
      { target: 'https://api.github.com/repos/o/r/issues?page=2', rel: ['next'] },
      { target: 'https://api.github.com/repos/o/r/issues?page=5', rel: ['last'] },
    ]);
  });

  it('handles rel lists, case, unquoted values, other params, quoted commas and semicolons in targets', () => {
    const header =
      '<https://x.test/a?x=1;y=2,3>; title="a, b; c"; REL="Last NEXT", <https://x.test/b>; rel=prev;anchor="#z"';
    expect(parseLinkHeader(header)).toEqual([
      { target: 'https://x.test/a?x=1;y=2,3', rel: ['last', 'next'] },
      { target: 'https://x.test/b', rel: ['prev'] },
    ]);
    expect(nextLink(header)).toBe('https://x.test/a?x=1;y=2,3');
  });

  it('reads only the first rel of a link', () => {
    expect(parseLinkHeader('<https://x.test/a>; rel="prev"; rel="next"')).toEqual([
      { target: 'https://x.test/a', rel: ['prev'] },
    ]);
  });

  it('reads several Link header lines', () => {
    expect(nextLink(['<https://x.test/p>; rel="prev"', '<https://x.test/n>; rel="next"'])).toBe(
      'https://x.test/n',
    );
  });

  it.each([
    '',
    'garbage',
    '<https://x.test/unterminated; rel="next"',
    '; rel="next"',
    'https://x.test/n; rel="next"',
    '<>; rel="next"',
    '<https://x.test/n>; rel="unterminated',
    '<https://x.test/n>; =x; ;',
  ])('yields no next link for malformed %j without throwing', (header) => {
    expect(nextLink(header)).toBeUndefined();
  });

  it('skips a malformed entry but keeps the good ones', () => {
    expect(nextLink('nonsense, <https://x.test/n>; rel="next"')).toBe('https://x.test/n');
  });
});
