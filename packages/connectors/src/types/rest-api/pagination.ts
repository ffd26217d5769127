/**
 * Runtime-driven pagination for `rest_api` endpoints (`pagination.type`):
 * which request parameters each page adds, and when to stop. Pure: the
 * executor fetches the pages and feeds each one's record count, body and
 * headers back here.
 *
 *   page_number  page_param = start_page, start_page + 1, …   (+ page_size_param = page_size)
 *   offset       offset_param = 0, limit, 2·limit, …          (+ limit_param = limit)
 *   cursor       cursor_param = <next_cursor_path of the previous body>
 *   link_header  the previous answer's `Link: <…>; rel="next"` (RFC 8288), same origin only
 *   next_url     the URL at `next_url_path` in the previous body (e.g. DRF's `next`), same origin only
 *
 * A loop ends ("done", nothing left) on an empty page, `has_more_path` not
 * true, `total_path` reached, fewer records than the page size, or no next
 * cursor / link / URL. It is "stopped" (more may exist; the result then says
 * `has_more: true` with a warning) when the upstream repeats a cursor, link
 * or URL, or points the next link or URL at another origin. The `max_pages` guard is
 * applied by the caller.
 *
 * Without `type`, pagination is caller-driven and handled by
 * `applyResponseMapping` (`has_more` / `next_cursor` in the result).
 */
import {
  DEFAULT_LIMIT_PARAM,
  DEFAULT_OFFSET_PARAM,
  DEFAULT_PAGE_PARAM,
} from '../../connector-definition.rules.js';
import {
  DEFAULT_MAX_PAGES,
  MAX_PAGES_LIMIT,
  type Pagination,
  type PaginationType,
} from '../../connector-definition.schema.js';
import { compileDotPath, getByDotPath } from '../../dot-path.js';
import type { PageOverrides } from './rest-request.js';

/** One fetched page, as the paginator needs it. */
export interface FetchedPage {
  /** Records the page yielded (after `results_path`). */
  records: number;
  /** The decoded JSON body. */
  body: unknown;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The URL that was requested (to resolve a relative `Link`). */
  requestUrl: string;
}

export type PageDecision =
  /** Fetch another page with these overrides. */
  | { kind: 'next'; overrides: PageOverrides }
  /** Nothing left. */
  | { kind: 'done' }
  /** Stopped although more may exist; `warning` says why. */
  | { kind: 'stopped'; warning: string };

export interface Paginator {
  readonly type: PaginationType;
  /** Most pages one call fetches. */
  readonly maxPages: number;
  /** What the first request adds. */
  first(): PageOverrides;
  /** What to do after `page`. */
  next(page: FetchedPage): PageDecision;
}

/**
 * A paginator for a `pagination` block with a `type` (checked by the rules:
 * cursor has cursor_param and next_cursor_path, offset has limit).
 * `origin` is the connector's base_url origin, the only one `link_header`
 * and `next_url` follow.
 */
export function createPaginator(p: Pagination & { type: PaginationType }, origin: string): Paginator {
  const maxPages = Math.min(p.max_pages ?? DEFAULT_MAX_PAGES, MAX_PAGES_LIMIT);
  const inBody = p.inject_into === 'body';
  const params = (pairs: Array<[string, string | number]>): PageOverrides =>
    inBody
      ? { body: Object.fromEntries(pairs) }
      : { query: pairs.map(([k, v]): [string, string] => [k, String(v)]) };
  const sizePair = (): Array<[string, number]> =>
    p.page_size_param !== undefined && p.page_size !== undefined ? [[p.page_size_param, p.page_size]] : [];
  const pageSize = p.type === 'offset' ? p.limit : p.page_size;

  let fetched = 0;
  /** Common stop conditions; `undefined` when the type-specific rule decides. */
  const commonStop = (page: FetchedPage): PageDecision | undefined => {
    fetched += page.records;
    if (page.records === 0) return { kind: 'done' };
    if (p.has_more_path !== undefined) {
      const flag = getByDotPath(page.body, p.has_more_path);
      if (flag !== true && flag !== 'true') return { kind: 'done' };
    }
    if (p.total_path !== undefined) {
      const total = toCount(getByDotPath(page.body, p.total_path));
      if (total !== undefined && fetched >= total) return { kind: 'done' };
    }
    if (pageSize !== undefined && page.records < pageSize) return { kind: 'done' };
    return undefined;
  };

  switch (p.type) {
    case 'page_number': {
      const pageParam = p.page_param ?? DEFAULT_PAGE_PARAM;
      let page = p.start_page ?? 1;
      return {
        type: p.type,
        maxPages,
        first: () => params([[pageParam, page], ...sizePair()]),
        next: (fetchedPage) => {
          const stop = commonStop(fetchedPage);
          if (stop) return stop;
          page += 1;
          return { kind: 'next', overrides: params([[pageParam, page], ...sizePair()]) };
        },
      };
    }
    case 'offset': {
      const offsetParam = p.offset_param ?? DEFAULT_OFFSET_PARAM;
      const limitParam = p.limit_param ?? DEFAULT_LIMIT_PARAM;
      const limit = p.limit as number;
      let offset = 0;
      return {
        type: p.type,
        maxPages,
        first: () =>
          params([
            [offsetParam, offset],
            [limitParam, limit],
          ]),
        next: (fetchedPage) => {
          const stop = commonStop(fetchedPage);
          if (stop) return stop;
          offset += limit;
          return {
            kind: 'next',
            overrides: params([
              [offsetParam, offset],
              [limitParam, limit],
            ]),
          };
        },
      };
    }
    case 'cursor': {
      const cursorParam = p.cursor_param as string;
      const cursorPath = p.next_cursor_path as string;
      const seen = new Set<string>();
      return {
        type: p.type,
        maxPages,
        first: () => params(sizePair()),
        next: (fetchedPage) => {
          const stop = commonStop(fetchedPage);
          if (stop) return stop;
          const cursor = cursorOf(getByDotPath(fetchedPage.body, cursorPath));
          if (cursor === undefined) return { kind: 'done' };
          if (seen.has(cursor)) {
            return {
              kind: 'stopped',
              warning: `stopped paging: the upstream returned a cursor it had already returned (at ${cursorPath})`,
            };
          }
          seen.add(cursor);
          return { kind: 'next', overrides: params([[cursorParam, cursor], ...sizePair()]) };
        },
      };
    }
    case 'link_header':
    case 'next_url': {
      const seen = new Set<string>();
      const firstOverrides = params(sizePair());
      const urlPath = p.type === 'next_url' ? compileDotPath(p.next_url_path as string) : undefined;
      const what = p.type === 'next_url' ? `next-page URL (at ${p.next_url_path})` : 'next-page Link';
      return {
        type: p.type,
        maxPages,
        first: () => firstOverrides,
        next: (fetchedPage) => {
          const stop = commonStop(fetchedPage);
          if (stop) return stop;
          const target =
            p.type === 'next_url'
              ? nextUrlOf(urlPath ? getByDotPath(fetchedPage.body, urlPath) : undefined)
              : nextLink(fetchedPage.headers.link);
          if (target === undefined) return { kind: 'done' };
          let url: URL;
          try {
            url = new URL(target, fetchedPage.requestUrl);
          } catch {
            return { kind: 'stopped', warning: `stopped paging: the ${what} is not a valid URL` };
          }
          if (url.origin !== origin || url.username !== '' || url.password !== '') {
            return {
              kind: 'stopped',
              warning: `stopped paging: the ${what} points away from ${origin} and is not followed`,
            };
          }
          url.hash = '';
          const key = url.toString();
          if (seen.has(key)) {
            return { kind: 'stopped', warning: `stopped paging: the ${what} repeats an earlier page` };
          }
          seen.add(key);
          // Body-injected page size is kept on every page; the URL carries everything else.
          return {
            kind: 'next',
            overrides: { url: key, ...(firstOverrides.body ? { body: firstOverrides.body } : {}) },
          };
        },
      };
    }
  }
}

/** A next-page URL from a body: a non-empty string; `null`, `""` or a missing value mean there is none. */
function nextUrlOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A non-negative whole count from a number or numeric string. */
function toCount(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A usable cursor: a non-empty string or a finite number. */
function cursorOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The target of the first `rel="next"` link in one or more `Link` header values. */
export function nextLink(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const values = Array.isArray(header) ? header : [header];
  for (const link of values.flatMap(parseLinkHeader)) {
    if (link.rel.includes('next')) return link.target;
  }
  return undefined;
}

export interface ParsedLink {
  target: string;
  /** Lower-cased relation types (`rel` is a space-separated list). */
  rel: string[];
}

/**
 * Parses one `Link` header value (RFC 8288 §3): comma-separated
 * `<target>; param=value; param="quoted, value"`. Malformed entries are
 * skipped rather than failing the whole header.
 */
export function parseLinkHeader(value: string): ParsedLink[] {
  const links: ParsedLink[] = [];
  let i = 0;
  const n = value.length;
  const skipSpace = () => {
    while (i < n && (value[i] === ' ' || value[i] === '\t')) i++;
  };
  while (i < n) {
    skipSpace();
    if (value[i] === ',') {
      i++;
      continue;
    }
    if (value[i] !== '<') {
      // Not a link: skip to the next top-level comma.
      i = skipToComma(value, i);
      continue;
    }
    const close = value.indexOf('>', i + 1);
    if (close < 0) break;
    const target = value.slice(i + 1, close).trim();
    i = close + 1;
    const rel: string[] = [];
    let relSeen = false;
    for (;;) {
      skipSpace();
      if (value[i] !== ';') break;
      i++;
      skipSpace();
      const nameStart = i;
      while (i < n && /[!#$%&'*+.^_`|~0-9A-Za-z-]/.test(value[i] as string)) i++;
      const name = value.slice(nameStart, i).toLowerCase();
      skipSpace();
      let paramValue = '';
      if (value[i] === '=') {
        i++;
        skipSpace();
        if (value[i] === '"') {
          i++;
          while (i < n && value[i] !== '"') {
            if (value[i] === '\\' && i + 1 < n) i++;
            paramValue += value[i];
            i++;
          }
          i++;
        } else {
          const start = i;
          while (i < n && value[i] !== ';' && value[i] !== ',') i++;
          paramValue = value.slice(start, i).trim();
        }
      }
      // Only the first rel counts (RFC 8288 §3.3).
      if (name === 'rel' && !relSeen) {
        relSeen = true;
        rel.push(
          ...paramValue
            .toLowerCase()
            .split(/\s+/)
            .filter((r) => r !== ''),
        );
      }
      if (name === '') i = skipToSemicolonOrComma(value, i);
    }
    if (target !== '') links.push({ target, rel });
    i = skipToComma(value, i);
  }
  return links;
}

function skipToComma(value: string, from: number): number {
  let i = from;
  let quoted = false;
  while (i < value.length) {
    const c = value[i];
    if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) return i + 1;
    i++;
  }
  return i;
}

function skipToSemicolonOrComma(value: string, from: number): number {
  let i = from;
  while (i < value.length && value[i] !== ';' && value[i] !== ',') i++;
  return i;
}
