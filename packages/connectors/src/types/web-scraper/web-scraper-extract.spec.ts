import { convertValue, extractPage } from './web-scraper-extract.js';
import type { Extraction } from './web-scraper-schema.js';

const PAGE_URL = 'https://sos.example.gov/corp/search?name=acme';
const HTML = `<!doctype html>
<html><head><title>Results</title></head><body>
<table class="results">
  <tr><th>Name</th><th>Filed</th><th>Capital</th><th>Active</th></tr>
  <tr class="row">
    <td class="name"><a href="/corp/1?x=1#top">  ACME
      Holdings </a></td>
    <td class="date">03/15/2021</td><td class="cap">$1,250.50</td><td>Yes</td>
    <td class="officers"><span>Ann</span><span>Bo</span></td>
  </tr>
  <tr class="row">
    <td class="name"><a href="detail.php?id=2">Acme Labs</a></td>
    <td class="date">2020-01-02</td><td class="cap">n/a</td><td>no</td>
    <td class="officers"></td>
  </tr>
</table>
<a class="next" href="?name=acme&amp;page=2#results">Next</a>
</body></html>`;

const field = (f: Record<string, unknown>) => ({ multiple: false, required: false, ...f });
const spec = (fields: Record<string, Record<string, unknown>>, item_selector?: string): Extraction => ({
  ...(item_selector ? { item_selector } : {}),
  fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, field(v)])) as Extraction['fields'],
});

describe('extractPage', () => {
  it('takes one record per item with text, attributes (href resolved), types and lists', () => {
    const out = extractPage(
      HTML,
      PAGE_URL,
      spec(
        {
          name: { selector: 'td.name' },
          url: { selector: 'td.name a', attr: 'href' },
          filed: { selector: 'td.date', type: 'date' },
          capital: { selector: 'td.cap', type: 'number' },
          active: { selector: 'td:nth-child(4)', type: 'boolean' },
          officers: { selector: 'td.officers span', multiple: true },
          missing: { selector: '.nope' },
        },
        'tr.row',
      ),
    );

    expect(out.records).toEqual([
      {
        name: 'ACME Holdings',
        url: 'https://sos.example.gov/corp/1?x=1#top',
        filed: '2021-03-15',
        capital: 1250.5,
        active: true,
        officers: ['Ann', 'Bo'],
        missing: null,
      },
      {
        name: 'Acme Labs',
        url: 'https://sos.example.gov/corp/detail.php?id=2',
        filed: '2020-01-02',
        capital: null,
        active: false,
        officers: [],
        missing: null,
      },
    ]);
    expect(out.unconvertible).toEqual({ capital: 1 });
    expect(out.nextUrl).toBeUndefined();
  });

  it('skips items without a required value (table header rows) and counts them', () => {
    const out = extractPage(HTML, PAGE_URL, spec({ name: { selector: 'td.name', required: true } }, 'tr'));

    expect(out.records.map((r) => r.name)).toEqual(['ACME Holdings', 'Acme Labs']);
    expect(out.skipped).toEqual({ name: 1 });
  });

  it('without item_selector the page is one record; html fields keep markup', () => {
    const out = extractPage(
      HTML,
      PAGE_URL,
      spec({ title: { selector: 'title' }, first: { selector: 'td.officers', type: 'html' } }),
    );

    expect(out.records).toEqual([{ title: 'Results', first: '<span>Ann</span><span>Bo</span>' }]);
  });

  it('finds the next page: relative href resolved, entities decoded, fragment dropped; <base href> respected', () => {
    expect(extractPage(HTML, PAGE_URL, spec({ t: { selector: 'title' } }), 'a.next').nextUrl).toBe(
      'https://sos.example.gov/corp/search?name=acme&page=2',
    );
    const withBase = HTML.replace('<head>', '<head><base href="https://sos.example.gov/v2/">');
    expect(extractPage(withBase, PAGE_URL, spec({ t: { selector: 'title' } }), 'a.next').nextUrl).toBe(
      'https://sos.example.gov/v2/?name=acme&page=2',
    );
  });

  it.each([
    ['<a class="next">Next</a>', 'has no href'],
    ['<a class="next" href="javascript:go(2)">Next</a>', 'uses javascript:'],
    ['<a class="next" href="http://[bad">Next</a>', 'is not a valid URL'],
  ])('reports an unusable next link %s', (link, problem) => {
    const out = extractPage(
      `<html><body>${link}</body></html>`,
      PAGE_URL,
      spec({ t: { selector: 'a' } }),
      'a.next',
    );

    expect(out.nextUrl).toBeUndefined();
    expect(out.nextProblem).toContain(problem);
  });

  it('extracts from malformed HTML the way browsers recover it', () => {
    const broken =
      '<div class="item"><span class="n">One<div class="item"><span class="n">Two</span></p></table>';

    const out = extractPage(broken, PAGE_URL, spec({ n: { selector: 'span.n' } }, 'div.item'));

    expect(out.records.map((r) => r.n)).toEqual(['OneTwo', 'Two']);
  });
});

describe('convertValue', () => {
  it.each([
    ['number', '(1,234)', -1234],
    ['number', '12%', 12],
    ['number', '1e3', 1000],
    ['integer', '42', 42],
    ['integer', '4.2', null],
    ['number', 'twelve', null],
    ['boolean', 'Active', true],
    ['boolean', 'maybe', null],
    ['date', '2021-02-30', null],
    ['date', 'June 5, 2021', '2021-06-05'],
    ['date', '2021-06-05T10:00:00Z', '2021-06-05T10:00:00.000Z'],
    ['url', 'mailto:a@b.c', 'mailto:a@b.c'],
    ['url', 'javascript:void(0)', null],
    ['string', '', ''],
    ['number', '', null],
  ] as const)('%s %j → %j', (type, input, value) => {
    expect(convertValue(input, type, PAGE_URL).value).toEqual(value);
  });
});
