import { htmlToText, isoDate, mergeFeedItems, parseFeed, type FeedItem } from './rss-feed-parse.js';

const FEED_URL = 'https://feeds.example.com/news/rss.xml';

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
  <channel>
    <title>News &amp; Notes</title>
    <item>
      <title><![CDATA[Rule <b>one</b>]]></title>
      <link>/items/1</link>
      <description>&lt;p&gt;First &amp;amp; best&lt;/p&gt;&lt;p&gt;paragraph&lt;/p&gt;</description>
      <pubDate>Mon, 06 Sep 2021 16:45:00 +0200</pubDate>
      <dc:creator>Ann Author</dc:creator>
      <guid isPermaLink="false">rule-1</guid>
      <category>Energy</category>
      <category>Rules</category>
    </item>
    <item>
      <title>Second</title>
      <guid>https://feeds.example.com/items/2</guid>
      <content:encoded><![CDATA[<div>Body&nbsp;text</div>]]></content:encoded>
      <dc:date>2021-09-07T08:00:00Z</dc:date>
    </item>
  </channel>
</rss>`;

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">Agency &lt;i&gt;feed&lt;/i&gt;</title>
  <entry>
    <title type="html">Notice &lt;em&gt;A&lt;/em&gt;</title>
    <link rel="self" href="https://feeds.example.com/self/a"/>
    <link rel="alternate" type="text/html" href="notices/a"/>
    <id>urn:uuid:a</id>
    <updated>2021-09-08T10:00:00Z</updated>
    <published>2021-09-01T10:00:00-05:00</published>
    <author><name>Bea</name></author>
    <author><name>Cy</name></author>
    <category term="energy" label="Energy"/>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Hello <b>there</b></p></div></content>
  </entry>
  <entry>
    <title>Notice B</title>
    <link href="https://other.example.org/b"/>
    <id>urn:uuid:b</id>
    <updated>2021-09-09T00:00:00Z</updated>
    <summary>Short summary</summary>
  </entry>
</feed>`;

describe('parseFeed', () => {
  it('normalises RSS 2.0 items', () => {
    const feed = parseFeed(RSS, FEED_URL);

    if (!feed.ok) throw new Error(feed.reason);
    expect(feed.format).toBe('rss');
    expect(feed.title).toBe('News & Notes');
    const [first, second] = feed.items;
    expect(first).toMatchObject({
      title: 'Rule one',
      link: 'https://feeds.example.com/items/1',
      published_at: '2021-09-06T14:45:00.000Z',
      updated_at: null,
      summary: 'First & best paragraph',
      author: 'Ann Author',
      guid: 'rule-1',
      categories: ['Energy', 'Rules'],
    });
    expect(first?.raw).toMatchObject({
      pubDate: 'Mon, 06 Sep 2021 16:45:00 +0200',
      guid: 'rule-1',
      category: ['Energy', 'Rules'],
      'dc:creator': 'Ann Author',
    });
    // No <link>: a permalink guid stands in; content:encoded stands in for description.
    expect(second).toMatchObject({
      link: 'https://feeds.example.com/items/2',
      guid: 'https://feeds.example.com/items/2',
      published_at: '2021-09-07T08:00:00.000Z',
      summary: 'Body\u00a0text'.replace('\u00a0', ' '),
      author: null,
      categories: [],
    });
  });

  it('normalises Atom entries: alternate link, published else updated, authors, xhtml content', () => {
    const feed = parseFeed(ATOM, FEED_URL);

    if (!feed.ok) throw new Error(feed.reason);
    expect(feed.format).toBe('atom');
    expect(feed.title).toBe('Agency feed');
    expect(feed.items[0]).toMatchObject({
      title: 'Notice A',
      link: 'https://feeds.example.com/news/notices/a',
      published_at: '2021-09-01T15:00:00.000Z',
      updated_at: '2021-09-08T10:00:00.000Z',
      summary: 'Hello there',
      author: 'Bea, Cy',
      guid: 'urn:uuid:a',
      categories: ['Energy'],
    });
    expect(feed.items[1]).toMatchObject({
      link: 'https://other.example.org/b',
      published_at: '2021-09-09T00:00:00.000Z',
      summary: 'Short summary',
    });
  });

  it('reads RSS 1.0 (RDF) items', () => {
    const rdf = `<?xml version="1.0"?>
      <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel rdf:about="https://x.test/"><title>RDF</title></channel>
        <item rdf:about="https://x.test/1"><title>One</title><link>https://x.test/1</link><dc:date>2021-01-02</dc:date></item>
      </rdf:RDF>`;

    const feed = parseFeed(rdf, FEED_URL);

    expect(feed).toMatchObject({
      ok: true,
      format: 'rdf',
      title: 'RDF',
      items: [{ title: 'One', link: 'https://x.test/1', published_at: '2021-01-02T00:00:00.000Z' }],
    });
  });

  it('a channel without items is an empty feed', () => {
    expect(parseFeed('<rss version="2.0"><channel><title>t</title></channel></rss>', FEED_URL)).toMatchObject(
      {
        ok: true,
        items: [],
      },
    );
  });

  it.each([
    ['truncated XML', RSS.slice(0, 400), /is not well-formed XML: .*\(line \d+, column \d+\)/],
    ['mismatched tags', '<rss><channel><item></channel></rss>', /is not well-formed XML/],
    [
      'an HTML page',
      '<!DOCTYPE html>\n<html><body><p>Sign in</p></body></html>',
      /is an HTML page, not an RSS or Atom feed/,
    ],
    [
      'XHTML without a doctype',
      '<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>',
      /is an HTML page/,
    ],
    [
      'another XML document',
      '<?xml version="1.0"?><note><to>x</to></note>',
      /is not an RSS or Atom feed \(the document root is <note>\)/,
    ],
    ['plain text', 'Service temporarily unavailable', /is not well-formed XML|is not an RSS or Atom feed/],
    ['an empty body', '   ', /is empty/],
    ['RSS without a channel', '<rss version="2.0"></rss>', /without a <channel>/],
  ])('refuses %s with a reason', (_, xml, reason) => {
    const feed = parseFeed(xml, FEED_URL);

    expect(feed.ok).toBe(false);
    if (!feed.ok) expect(feed.reason).toMatch(reason);
  });

  it('bounds DOCTYPE entity expansion ("billion laughs")', () => {
    const bomb = `<?xml version="1.0"?>
      <!DOCTYPE rss [
        <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
        <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
        <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
      ]>
      <rss version="2.0"><channel>${'<item><title>&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;</title></item>'.repeat(50)}</channel></rss>`;

    const started = Date.now();
    const feed = parseFeed(bomb, FEED_URL);

    expect(Date.now() - started).toBeLessThan(2000);
    // Either refused outright or parsed without the expansion blowing up.
    if (feed.ok) expect(JSON.stringify(feed.items).length).toBeLessThan(5_000_000);
    else expect(feed.reason).toMatch(/XML|entit/i);
  });
});

describe('isoDate / htmlToText', () => {
  it.each([
    ['Tue, 10 Jun 2003 04:00:00 GMT', '2003-06-10T04:00:00.000Z'],
    ['Tue, 10 Jun 2003 04:00:00 EST', '2003-06-10T09:00:00.000Z'],
    ['2003-12-13T18:30:02.25+01:00', '2003-12-13T17:30:02.250Z'],
    ['not a date', null],
    [null, null],
  ])('%s → %s', (input, out) => {
    expect(isoDate(input)).toBe(out);
  });

  it('drops tags, decodes entities and keeps block boundaries as spaces', () => {
    expect(htmlToText('<p>a&amp;b</p><p>c<br>d</p> <script>x</script>')).toBe('a&b c d x');
  });
});

describe('mergeFeedItems', () => {
  const item = (over: Partial<FeedItem>): FeedItem => ({
    title: null,
    link: null,
    published_at: null,
    updated_at: null,
    summary: null,
    author: null,
    guid: null,
    categories: [],
    raw: {},
    ...over,
  });
  const a = item({ guid: 'a', published_at: '2024-01-01T10:00:00.000Z' });
  const b = item({ link: 'https://x/b', published_at: '2024-01-03T10:00:00.000Z' });
  const c = item({
    title: 'c',
    published_at: '2024-01-02T10:00:00.000Z',
    updated_at: '2024-01-05T00:00:00.000Z',
  });
  const undated = item({ guid: 'u' });

  it('sorts newest first by the later of published and updated, undated last', () => {
    expect(mergeFeedItems([undated, a, b, c], { maxItems: 10 }).items).toEqual([c, b, a, undated]);
  });

  it('de-duplicates by guid, then link, then title + date; the first occurrence wins', () => {
    const merged = mergeFeedItems(
      [a, { ...a, title: 'copy' }, b, { ...b, guid: null, title: 'also b' }, c, { ...c }],
      { maxItems: 10 },
    );

    expect(merged.items).toEqual([c, b, a]);
    expect(merged.duplicates).toBe(3);
  });

  it('drops items older than sinceMs but keeps (and counts) undated ones', () => {
    const merged = mergeFeedItems([a, b, c, undated], {
      maxItems: 10,
      sinceMs: Date.parse('2024-01-02T12:00:00Z'),
    });

    expect(merged.items).toEqual([c, b, undated]);
    expect(merged).toMatchObject({ old: 1, undated: 1 });
  });

  it('keeps at most maxItems and says how many were left out', () => {
    const merged = mergeFeedItems([a, b, c], { maxItems: 2 });

    expect(merged.items).toEqual([c, b]);
    expect(merged.truncated).toBe(1);
  });
});
