/**
 * Extracts records from one HTML page with CSS selectors (cheerio) and finds
 * the next page's link. Pure: HTML and the page URL in, records out.
 */
import * as cheerio from 'cheerio';
import { coerceParameterValue } from '../../parameter-values.js';
import type { Extraction, FieldType, ScrapeField } from './web-scraper-schema.js';

/** A DOM node (domhandler's AnyNode, which cheerio does not re-export). */
type AnyNode = Exclude<Parameters<typeof cheerio.load>[0], string | Buffer | readonly unknown[]>;

export interface PageExtraction {
  records: Record<string, unknown>[];
  /** Items skipped because a required field had no value, by field. */
  skipped: Record<string, number>;
  /** Values that did not convert to the field's type (kept as null), by field. */
  unconvertible: Record<string, number>;
  /** The next page's absolute URL (fragment removed), when the next link is there and usable. */
  nextUrl?: string;
  /** Why a next link that is present was not usable. */
  nextProblem?: string;
}

/** Extracts the records of `html` (fetched from `pageUrl`) and, with `nextSelector`, the next page's URL. */
export function extractPage(
  html: string,
  pageUrl: string,
  spec: Extraction,
  nextSelector?: string,
): PageExtraction {
  const $ = cheerio.load(html);
  const base = documentBase($, pageUrl);
  const out: PageExtraction = { records: [], skipped: {}, unconvertible: {} };
  const items = spec.item_selector ? $(spec.item_selector).toArray() : [$.root().get(0) as AnyNode];
  for (const item of items) {
    const record: Record<string, unknown> = {};
    let skip: string | undefined;
    for (const [name, field] of Object.entries(spec.fields)) {
      const matches = field.selector ? $(item).find(field.selector).toArray() : [item];
      const convert = (el: AnyNode) => {
        const { value, ok } = fieldValue($, el, field, base);
        if (!ok) out.unconvertible[name] = (out.unconvertible[name] ?? 0) + 1;
        return value;
      };
      const value = field.multiple
        ? matches.map(convert).filter((v) => v !== null)
        : matches[0] !== undefined
          ? convert(matches[0])
          : null;
      if (
        field.required &&
        (value === null || value === '' || (Array.isArray(value) && value.length === 0))
      ) {
        skip = name;
        break;
      }
      record[name] = value;
    }
    if (skip !== undefined) out.skipped[skip] = (out.skipped[skip] ?? 0) + 1;
    else out.records.push(record);
  }
  if (nextSelector) Object.assign(out, nextLink($, nextSelector, base));
  return out;
}

/** The element's value as the field says: attribute or text, then converted. */
function fieldValue(
  $: cheerio.CheerioAPI,
  el: AnyNode,
  field: ScrapeField,
  base: string,
): { value: unknown; ok: boolean } {
  const node = $(el);
  const type: FieldType = field.type ?? (field.attr === 'href' || field.attr === 'src' ? 'url' : 'string');
  if (type === 'html') {
    const markup = node.html();
    return { value: markup === null ? null : markup.trim(), ok: true };
  }
  const raw = field.attr !== undefined ? node.attr(field.attr) : node.text();
  if (raw === undefined) return { value: null, ok: true };
  const textValue = raw.replace(/\s+/g, ' ').trim();
  return convertValue(textValue, type, base);
}

/** Converts extracted text to `type`; `ok: false` (value null) when it does not fit. Empty text is null. */
export function convertValue(value: string, type: FieldType, base: string): { value: unknown; ok: boolean } {
  if (type === 'string') return { value, ok: true };
  if (value === '') return { value: null, ok: true };
  switch (type) {
    case 'number':
    case 'integer': {
      // "$1,234.50", "1 234", "(12)" accounting negatives.
      const negative = /^\(.*\)$/.test(value);
      const cleaned = value.replace(/^\((.*)\)$/, '$1').replace(/[\s,$€£¥%]/g, '');
      const n = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?$/i.test(cleaned) ? Number(cleaned) : NaN;
      if (!Number.isFinite(n) || (type === 'integer' && !Number.isSafeInteger(n)))
        return { value: null, ok: false };
      return { value: negative ? -n : n, ok: true };
    }
    case 'boolean': {
      const v = value.toLowerCase();
      if (['true', 'yes', 'y', '1', 'active', '✓'].includes(v)) return { value: true, ok: true };
      if (['false', 'no', 'n', '0', 'inactive'].includes(v)) return { value: false, ok: true };
      return { value: null, ok: false };
    }
    case 'date': {
      if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
        // Date.parse rolls 2021-02-30 over to March; the parameter check does not.
        return coerceParameterValue('date', value).ok ? { value, ok: true } : { value: null, ok: false };
      }
      const t = Date.parse(value);
      if (Number.isNaN(t)) return { value: null, ok: false };
      const iso = new Date(t).toISOString();
      // A date without a time of day stays a date (Date.parse reads it as local midnight).
      const hasTime = /\d{1,2}:\d{2}/.test(value);
      return { value: hasTime ? iso : localDate(t), ok: true };
    }
    case 'url':
      return resolveHttpUrl(value, base);
    default:
      return { value, ok: true };
  }
}

function localDate(t: number): string {
  const d = new Date(t);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function resolveHttpUrl(href: string, base: string): { value: unknown; ok: boolean } {
  try {
    const url = new URL(href, base);
    if (url.protocol === 'http:' || url.protocol === 'https:') return { value: url.toString(), ok: true };
    // mailto:, tel: and the like are kept as written; javascript: is not a link.
    return url.protocol === 'javascript:' ? { value: null, ok: false } : { value: href, ok: true };
  } catch {
    return { value: null, ok: false };
  }
}

/** `<base href>` resolved against the page URL, else the page URL. */
function documentBase($: cheerio.CheerioAPI, pageUrl: string): string {
  const href = $('base[href]').first().attr('href');
  if (!href) return pageUrl;
  try {
    return new URL(href, pageUrl).toString();
  } catch {
    return pageUrl;
  }
}

function nextLink(
  $: cheerio.CheerioAPI,
  selector: string,
  base: string,
): Pick<PageExtraction, 'nextUrl' | 'nextProblem'> {
  const el = $(selector).first();
  if (el.length === 0) return {};
  const href = el.attr('href')?.trim();
  if (!href) return { nextProblem: `the next-page element "${selector}" has no href` };
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return { nextProblem: `the next-page link "${href.slice(0, 100)}" is not a valid URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { nextProblem: `the next-page link uses ${url.protocol.slice(0, 20)}, not http or https` };
  }
  url.hash = '';
  return { nextUrl: url.toString() };
}
