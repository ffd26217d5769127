/**
 * A result rendered as a file: markdown, JSON, CSV or text, and file names
 * from a `filename_template` with `{variables}`. Pure: the clock and the
 * run's ids come in as arguments. (xlsx is binary: see xlsx.ts.)
 */
import { DESTINATION_FORMATS, type DestinationFormat } from '@af/plan';

export const FORMATS = DESTINATION_FORMATS;
export type Format = DestinationFormat;
/** Formats rendered as text (xlsx is not). */
export type TextFormat = Exclude<Format, 'xlsx'>;

export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export const CONTENT_TYPES: Record<Format, string> = {
  markdown: 'text/markdown',
  json: 'application/json',
  csv: 'text/csv',
  text: 'text/plain',
  xlsx: XLSX_CONTENT_TYPE,
};

export const EXTENSIONS: Record<Format, string> = { markdown: 'md', json: 'json', csv: 'csv', text: 'txt', xlsx: 'xlsx' };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The rows a result holds: an array of records, or `{rows|results|data: [...]}`, or one record. */
export function rowsOf(data: unknown): Record<string, unknown>[] {
  if (Array.isArray(data)) return data.map((r) => (isRecord(r) ? r : { value: r }));
  if (isRecord(data)) {
    for (const k of ['rows', 'results', 'data', 'items']) if (Array.isArray(data[k])) return rowsOf(data[k]);
    return [data];
  }
  return data === undefined || data === null ? [] : [{ value: data }];
}

/** A playbook output block's sectioned result: `{sections: [{title, format?, content}], text?, summary?}`. */
export interface SectionedOutput {
  sections: Array<{ title: string; format?: TextFormat; content: unknown }>;
  text?: string;
  summary?: string;
}

/** Whether `data` is an output block's sectioned result. */
export function isSectioned(data: unknown): data is SectionedOutput {
  return (
    isRecord(data) &&
    Array.isArray(data.sections) &&
    data.sections.every((s) => isRecord(s) && typeof s.title === 'string' && 'content' in s)
  );
}

/** Sections as one markdown document: the text, the summary, then a heading per section in its own format. */
function sectionsMarkdown(data: SectionedOutput, title: string): string {
  const parts: string[] = [];
  if (title) parts.push(`# ${title}\n`);
  if (data.text) parts.push(`${data.text}\n`);
  if (data.summary) parts.push(`## Summary\n\n${data.summary}\n`);
  for (const s of data.sections) {
    const f = s.format ?? 'markdown';
    const body =
      f === 'markdown' || f === 'text'
        ? typeof s.content === 'string'
          ? `${s.content}\n`
          : toMarkdown(s.content).replace(/^## /gm, '### ')
        : '```' + f + '\n' + render(s.content, f).trimEnd() + '\n```\n';
    parts.push(`## ${s.title}\n\n${body}`);
  }
  return parts.join('\n');
}

/** Renders `data` in a text format; `title` heads a markdown document. */
export function render(data: unknown, format: TextFormat, title = ''): string {
  if (isSectioned(data)) {
    if (format === 'markdown' || format === 'text') return sectionsMarkdown(data, title);
    if (format === 'csv')
      return toCsv(data.sections.flatMap((s) => rowsOf(s.content).map((r) => ({ _section: s.title, ...r }))));
    return `${JSON.stringify(
      {
        ...(data.text ? { text: data.text } : {}),
        ...(data.summary ? { summary: data.summary } : {}),
        sections: Object.fromEntries(data.sections.map((s) => [s.title, s.content ?? null])),
      },
      null,
      2,
    )}\n`;
  }
  switch (format) {
    case 'json':
      return `${JSON.stringify(data ?? null, null, 2)}\n`;
    case 'csv':
      return toCsv(rowsOf(data));
    case 'text':
      return typeof data === 'string' ? data : `${JSON.stringify(data ?? null, null, 2)}\n`;
    case 'markdown':
      return toMarkdown(data, title);
  }
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** RFC 4180 CSV: header of every key in first-seen order; fields with `,` `"` or newlines quoted. */
export function toCsv(rows: Record<string, unknown>[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (!cols.length) return '';
  const q = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  // A leading = + - @ would be run as a formula by spreadsheets: prefixed with ' (CSV injection).
  const safe = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);
  const lines = [cols.map(q).join(','), ...rows.map((r) => cols.map((c) => q(safe(cell(r[c])))).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

function mdEscape(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** Markdown: a string as it is; rows as a table; a record as a heading per key. */
export function toMarkdown(data: unknown, title = ''): string {
  const head = title ? `# ${title}\n\n` : '';
  if (typeof data === 'string') return `${head}${data}\n`;
  if (isRecord(data) && !['rows', 'results', 'data', 'items'].some((k) => Array.isArray(data[k]))) {
    const parts = Object.entries(data).map(
      ([k, v]) =>
        `## ${k}\n\n${typeof v === 'string' ? v : Array.isArray(v) && v.every(isRecord) ? table(v as Record<string, unknown>[]) : '```json\n' + JSON.stringify(v, null, 2) + '\n```'}\n`,
    );
    return `${head}${parts.join('\n')}`;
  }
  const rows = rowsOf(data);
  return `${head}${rows.length ? table(rows) : '_No results._\n'}`;
}

function table(rows: Record<string, unknown>[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  if (!cols.length) return '_No results._\n';
  return (
    [
      `| ${cols.map(mdEscape).join(' | ')} |`,
      `| ${cols.map(() => '---').join(' | ')} |`,
      ...rows.map((r) => `| ${cols.map((c) => mdEscape(cell(r[c]))).join(' | ')} |`),
    ].join('\n') + '\n'
  );
}

export interface TemplateVars {
  now: Date;
  runId: string;
  nodeId: string;
  /** Further variables (top-level scalars of the result, the title, …). */
  extra?: Record<string, unknown>;
}

const VAR = /\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g;

/**
 * Fills `{date}` and `{today}` (YYYY-MM-DD), `{datetime}` (YYYY-MM-DDTHH-MM-SS), `{time}`,
 * `{run_id}`, `{node_id}` and `extra`'s scalars. An unknown variable is an
 * error naming it; `/` `\` and control characters in values become `-`
 * (a file name, never a path).
 */
export function renderFilename(
  template: string,
  vars: TemplateVars,
): { ok: true; name: string } | { ok: false; reason: string } {
  const iso = vars.now.toISOString();
  const known: Record<string, unknown> = {
    date: iso.slice(0, 10),
    // The playbook built-in of the same day (playbooks interpolate it before the action sees the template).
    today: iso.slice(0, 10),
    datetime: iso.slice(0, 19).replace(/:/g, '-'),
    time: iso.slice(11, 19).replace(/:/g, '-'),
    run_id: vars.runId,
    node_id: vars.nodeId,
    ...vars.extra,
  };
  const unknown: string[] = [];
  const name = template.replace(VAR, (_, key: string) => {
    const v = known[key];
    if (v === undefined || v === null || typeof v === 'object') {
      unknown.push(key);
      return '';
    }
    return String(v);
  });
  if (unknown.length)
    return {
      ok: false,
      reason: `unknown template variable${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `{${u}}`).join(', ')} (known: ${Object.keys(
        known,
      )
        .filter((k) => typeof known[k] !== 'object')
        .map((k) => `{${k}}`)
        .join(', ')})`,
    };
  const clean = name.replace(/[/\\\x00-\x1f]/g, '-').trim();
  if (!clean || clean === '.' || clean === '..')
    return { ok: false, reason: 'renders to an empty file name' };
  if (clean.length > 255) return { ok: false, reason: 'renders to a file name longer than 255 characters' };
  return { ok: true, name: clean };
}

/** Top-level scalar fields of a result, for templates. */
export function scalarsOf(data: unknown): Record<string, unknown> {
  if (!isRecord(data)) return {};
  return Object.fromEntries(
    Object.entries(data).filter(([, v]) => v !== null && ['string', 'number', 'boolean'].includes(typeof v)),
  );
}
