/**
 * Parses RSS 2.0, RSS 1.0 (RDF) and Atom 1.0 documents with fast-xml-parser
 * into normalised items, and merges the items of several feeds (de-duplicate,
 * filter by age, newest first). Pure.
 */
import * as cheerio from 'cheerio';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** One feed item, normalised across formats; `raw` keeps the item's own elements (text-flattened). */
export interface FeedItem {
  title: string | null;
  link: string | null;
  /** ISO 8601 (RSS pubDate / dc:date; Atom published, else updated). */
  published_at: string | null;
  /** ISO 8601 (Atom updated). */
  updated_at: string | null;
  /** Plain text of the description / summary / content. */
  summary: string | null;
  author: string | null;
  guid: string | null;
  categories: string[];
  raw: Record<string, unknown>;
}

export type ParsedFeed =
  | { ok: true; format: 'rss' | 'rdf' | 'atom'; title: string | null; items: FeedItem[] }
  | { ok: false; reason: string };

/** Items are always lists; other repeatable elements keep the document's shape in `raw` (read with `list`). */
const ARRAY_PATHS = new Set(['rss.channel.item', 'rdf:RDF.item', 'feed.entry']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  htmlEntities: true,
  // DOCTYPE entities stay bounded (no "billion laughs").
  processEntities: {
    enabled: true,
    maxEntityCount: 50,
    maxTotalExpansions: 1000,
    maxExpandedLength: 100_000,
  },
  isArray: (_name, jpath) => typeof jpath === 'string' && ARRAY_PATHS.has(jpath),
  // XHTML text constructs stay markup: parsed into objects, mixed content would lose its word order.
  stopNodes: [
    'feed.title[type=xhtml]',
    ...['title', 'summary', 'content'].map((t) => `feed.entry.${t}[type=xhtml]`),
  ],
});

/** Parses one feed document fetched from `feedUrl` (relative links resolve against it). */
export function parseFeed(xml: string, feedUrl: string): ParsedFeed {
  const body = xml.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { ok: false, reason: 'is empty' };
  if (/^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html[\s>])/i.test(body)) {
    return { ok: false, reason: 'is an HTML page, not an RSS or Atom feed' };
  }
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    return {
      ok: false,
      reason: `is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`,
    };
  }
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(body) as Record<string, unknown>;
  } catch (err) {
    return {
      ok: false,
      reason: `is not well-formed XML: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const rss = asRecord(doc.rss);
  if (rss) {
    const channel = asRecord(first(rss.channel));
    if (!channel) return { ok: false, reason: 'is an RSS document without a <channel>' };
    return {
      ok: true,
      format: 'rss',
      title: textOf(channel.title),
      items: list(channel.item).map((i) => rssItem(i, feedUrl)),
    };
  }
  const rdf = asRecord(doc['rdf:RDF']);
  if (rdf) {
    const channel = asRecord(first(rdf.channel));
    return {
      ok: true,
      format: 'rdf',
      title: textOf(channel?.title),
      items: list(rdf.item).map((i) => rssItem(i, feedUrl)),
    };
  }
  const feed = asRecord(doc.feed);
  if (feed) {
    return {
      ok: true,
      format: 'atom',
      title: plainText(feed.title),
      items: list(feed.entry).map((e) => atomEntry(e, feedUrl)),
    };
  }
  const root = Object.keys(doc).find((k) => !k.startsWith('?')) ?? 'nothing';
  return { ok: false, reason: `is not an RSS or Atom feed (the document root is <${root}>)` };
}

function rssItem(value: unknown, feedUrl: string): FeedItem {
  const item = asRecord(value) ?? {};
  const guidNode = first(item.guid);
  const guid = textOf(guidNode);
  const permaLink = asRecord(guidNode)?.['@_isPermaLink'] !== 'false';
  const link = textOf(item.link) ?? (guid && permaLink && /^https?:\/\//i.test(guid) ? guid : null);
  return {
    title: plainText(item.title),
    link: resolveLink(link, feedUrl),
    published_at: isoDate(textOf(item.pubDate) ?? textOf(item['dc:date'])),
    updated_at: isoDate(textOf(item['atom:updated']) ?? textOf(item['dcterms:modified'])),
    summary: plainText(item.description) ?? plainText(item['content:encoded']),
    author: textOf(item.author) ?? textOf(item['dc:creator']),
    guid,
    categories: list(item.category)
      .map(textOf)
      .filter((c): c is string => c !== null),
    raw: flattenRecord(item),
  };
}

function atomEntry(value: unknown, feedUrl: string): FeedItem {
  const entry = asRecord(value) ?? {};
  const links = list(entry.link)
    .map(asRecord)
    .filter((l): l is Record<string, unknown> => l !== undefined);
  const alternate =
    links.find((l) => (l['@_rel'] ?? 'alternate') === 'alternate' && typeof l['@_href'] === 'string') ??
    links.find((l) => typeof l['@_href'] === 'string');
  const published = isoDate(textOf(entry.published));
  const updated = isoDate(textOf(entry.updated));
  const authors = list(entry.author)
    .map((a) => textOf(asRecord(a)?.name) ?? textOf(a))
    .filter((a): a is string => a !== null);
  return {
    title: plainText(entry.title),
    link: resolveLink(typeof alternate?.['@_href'] === 'string' ? alternate['@_href'] : null, feedUrl),
    published_at: published ?? updated,
    updated_at: updated,
    summary: plainText(entry.summary) ?? plainText(entry.content),
    author: authors.length > 0 ? authors.join(', ') : null,
    guid: textOf(entry.id),
    categories: list(entry.category)
      .map((c) => {
        const r = asRecord(c);
        const term = r?.['@_label'] ?? r?.['@_term'];
        return typeof term === 'string' && term.trim() !== '' ? term.trim() : textOf(c);
      })
      .filter((c): c is string => c !== null),
    raw: flattenRecord(entry),
  };
}

// ---------------------------------------------------------------- merging

export interface MergeOptions {
  /** Items whose date is older than this (epoch ms) are dropped; undated items are kept. */
  sinceMs?: number;
  maxItems: number;
}

export interface MergedItems<T> {
  items: T[];
  /** Items left out by `maxItems`. */
  truncated: number;
  duplicates: number;
  /** Dropped for being older than `sinceMs`. */
  old: number;
  /** Kept despite `sinceMs` because they carry no usable date. */
  undated: number;
}

/**
 * De-duplicates by guid, else link, else title + date (first occurrence wins,
 * so the earlier feed keeps a shared item), filters by age, sorts newest
 * first (by the later of published/updated; undated last, original order
 * otherwise) and keeps `maxItems`.
 */
export function mergeFeedItems<
  T extends Pick<FeedItem, 'guid' | 'link' | 'title' | 'published_at' | 'updated_at'>,
>(items: readonly T[], options: MergeOptions): MergedItems<T> {
  const seen = new Set<string>();
  let duplicates = 0;
  let old = 0;
  let undated = 0;
  const kept: Array<{ item: T; at: number | undefined; index: number }> = [];
  items.forEach((item, index) => {
    const key = item.guid
      ? `g:${item.guid}`
      : item.link
        ? `l:${item.link}`
        : `t:${item.title ?? ''}|${item.published_at ?? ''}`;
    if (seen.has(key)) {
      duplicates++;
      return;
    }
    seen.add(key);
    const at = itemTime(item);
    if (options.sinceMs !== undefined) {
      if (at === undefined) undated++;
      else if (at < options.sinceMs) {
        old++;
        return;
      }
    }
    kept.push({ item, at, index });
  });
  kept.sort((a, b) => {
    if (a.at !== undefined && b.at !== undefined && a.at !== b.at) return b.at - a.at;
    if ((a.at === undefined) !== (b.at === undefined)) return a.at === undefined ? 1 : -1;
    return a.index - b.index;
  });
  return {
    items: kept.slice(0, options.maxItems).map((k) => k.item),
    truncated: Math.max(0, kept.length - options.maxItems),
    duplicates,
    old,
    undated,
  };
}

function itemTime(item: Pick<FeedItem, 'published_at' | 'updated_at'>): number | undefined {
  const times = [item.published_at, item.updated_at]
    .map((d) => (d ? Date.parse(d) : NaN))
    .filter((t) => !Number.isNaN(t));
  return times.length > 0 ? Math.max(...times) : undefined;
}

// ---------------------------------------------------------------- values

/** RFC 822 (RSS), RFC 3339 (Atom) and the usual variants → ISO 8601; null when unparsable. */
export function isoDate(value: string | null): string | null {
  if (!value) return null;
  const t = Date.parse(value.trim());
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** Text of an element (string, or an object with `#text`), trimmed; null when empty. */
function textOf(value: unknown): string | null {
  const v = first(value);
  const node = asRecord(v);
  const s =
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : node && '#text' in node
        ? String(node['#text'])
        : undefined;
  const t = s?.trim();
  return t ? t : null;
}

/**
 * Plain text of a text construct that may hold HTML (RSS description, Atom
 * `type="html"`) or XHTML markup (Atom `type="xhtml"`, parsed into elements).
 */
function plainText(value: unknown): string | null {
  const v = first(value);
  const node = asRecord(v);
  const raw = textOf(v) ?? (node ? deepText(node) : null);
  if (!raw) return null;
  const text = raw.includes('<') || raw.includes('&') ? htmlToText(raw) : raw.replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}

/** Text of HTML: tags dropped, entities decoded, block boundaries kept as spaces. */
export function htmlToText(html: string): string {
  const spaced = html.replace(/<(?:br|\/p|\/div|\/li|\/h[1-6]|\/tr|\/td|\/th)\b[^>]*>/gi, '$& ');
  return cheerio.load(spaced, null, false).text().replace(/\s+/g, ' ').trim();
}

function deepText(node: unknown): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(deepText).join(' ');
  const r = asRecord(node);
  if (!r) return '';
  return Object.entries(r)
    .filter(([k]) => !k.startsWith('@_'))
    .map(([, v]) => deepText(v))
    .join(' ');
}

function resolveLink(link: string | null, base: string): string | null {
  if (!link) return null;
  try {
    return new URL(link, base).toString();
  } catch {
    return link;
  }
}

/** The item's elements for response_mapping: text-only elements become strings. */
function flattenRecord(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) out[k] = flatten(v);
  return out;
}

function flatten(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(flatten);
  const r = asRecord(value);
  if (!r) return value;
  if ('#text' in r) return String(r['#text']);
  return flattenRecord(r);
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

function list(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
