/**
 * CSV extraction for `parser: csv` endpoints with csv-parse: RFC 4180
 * quoting, a configurable one-character delimiter, an optional header row
 * after `skip_rows` lines, and `fields` that pick columns by header name
 * (exact, then case-insensitive) or by 1-based number and type them. Without
 * `fields`, every column becomes a string field named by its header (or
 * `column_1`, `column_2`, … without one).
 */
import { parse } from 'csv-parse/sync';
import type { CsvEndpoint } from './file-parser-schema.js';
import { FileProblem } from './file-parser-format.js';
import type { TypeMisses } from './file-parser-values.js';

/** Longest single record accepted (a runaway quote otherwise swallows the whole file into one cell). */
const MAX_RECORD_CHARS = 1024 * 1024;

interface Row {
  record: string[];
  info: { lines: number };
}

export interface CsvExtraction {
  records: Record<string, unknown>[];
  truncated: boolean;
  warnings: string[];
}

export function extractCsvRecords(
  text: string,
  endpoint: CsvEndpoint,
  maxRecords: number,
  misses: TypeMisses,
): CsvExtraction {
  const headerRows = endpoint.has_header ? 1 : 0;
  let rows: Row[];
  try {
    rows = parse(text, {
      delimiter: endpoint.delimiter,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      from_line: endpoint.skip_rows + 1,
      to: maxRecords + 1 + headerRows,
      info: true,
      max_record_size: MAX_RECORD_CHARS,
    }) as unknown as Row[];
  } catch (err) {
    throw new FileProblem(`is not valid CSV: ${err instanceof Error ? err.message : String(err)}`);
  }
  const warnings: string[] = [];
  const header = endpoint.has_header ? rows.shift() : undefined;
  if (endpoint.has_header && !header)
    return { records: [], truncated: false, warnings: ['the file has no rows'] };
  const names = header ? headerNames(header.record, warnings) : undefined;
  const truncated = rows.length > maxRecords;
  const data = rows.slice(0, maxRecords);

  if (names) {
    const ragged = data.filter((r) => r.record.length !== names.length);
    if (ragged.length > 0) {
      warnings.push(
        `${ragged.length} row${ragged.length === 1 ? ' has' : 's have'} a different number of columns than the header (first at line ${ragged[0]?.info.lines}); missing cells are null and extra cells are dropped`,
      );
    }
  }

  const fields = endpoint.fields;
  if (!fields) {
    const records = data.map((row) => {
      const keys = names ?? row.record.map((_, i) => `column_${i + 1}`);
      return Object.fromEntries(keys.map((key, i) => [key, row.record[i] ?? null]));
    });
    return { records, truncated, warnings };
  }
  const columns = fields.map((f) => ({ ...f, index: columnIndex(f.column, names) }));
  const records = data.map((row) => {
    const record: Record<string, unknown> = {};
    for (const f of columns) {
      record[f.field] = misses.value(row.record[f.index], f.type, f.field, `line ${row.info.lines}`);
    }
    return record;
  });
  return { records, truncated, warnings };
}

/** Header cells trimmed; blanks become `column_n` and repeats get `_2`, `_3`, with a warning. */
function headerNames(cells: readonly string[], warnings: string[]): string[] {
  const used = new Set<string>();
  const renamed: string[] = [];
  const names = cells.map((cell, i) => {
    const base = cell.trim() || `column_${i + 1}`;
    let name = base;
    for (let k = 2; used.has(name); k++) name = `${base}_${k}`;
    if (name !== base) renamed.push(`${base} → ${name}`);
    used.add(name);
    return name;
  });
  if (renamed.length > 0) warnings.push(`repeated header names were renamed: ${renamed.join(', ')}`);
  return names;
}

function columnIndex(column: string | number, names: readonly string[] | undefined): number {
  if (typeof column === 'number') {
    if (names && column > names.length) {
      throw new FileProblem(`has no column ${column} (it has ${names.length})`);
    }
    return column - 1;
  }
  if (!names) throw new FileProblem(`has no header row, so column "${column}" cannot be found`);
  let index = names.indexOf(column);
  if (index < 0) index = names.findIndex((n) => n.toLowerCase() === column.toLowerCase());
  if (index < 0) {
    const shown = names.slice(0, 20).join(', ') + (names.length > 20 ? ', …' : '');
    throw new FileProblem(`has no column "${column}" (columns: ${shown})`);
  }
  return index;
}
