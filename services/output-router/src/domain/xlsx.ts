/**
 * xlsx rendering with exceljs: a sheet per section of an output block's
 * result, else one sheet of the result's rows; a header row of every key
 * in first-seen order. Text that a spreadsheet would run as a formula is
 * written as a string value (exceljs never makes formulas of strings).
 */
import ExcelJS from 'exceljs';
import { isSectioned, rowsOf } from './render.js';

/** A sheet name Excel accepts: at most 31 characters, none of `: \ / ? * [ ]`, unique in the book. */
export function sheetName(title: string, taken: Set<string>): string {
  const base = title.replace(/[:\\/?*[\]]/g, ' ').trim().slice(0, 31) || 'Sheet';
  let name = base;
  for (let k = 2; taken.has(name.toLowerCase()); k++) name = `${base.slice(0, 28)} ${k}`;
  taken.add(name.toLowerCase());
  return name;
}

function cellValue(v: unknown): string | number | boolean | Date | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** The workbook's bytes. */
export async function renderXlsx(data: unknown, title = 'Results'): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  book.creator = 'Agent Factory';
  const taken = new Set<string>();
  const sheets = isSectioned(data)
    ? data.sections.map((s) => ({ name: s.title, rows: rowsOf(s.content) }))
    : [{ name: title, rows: rowsOf(data) }];
  for (const s of sheets) {
    const sheet = book.addWorksheet(sheetName(s.name, taken));
    const cols = [...new Set(s.rows.flatMap((r) => Object.keys(r)))];
    if (!cols.length) continue;
    sheet.addRow(cols).font = { bold: true };
    for (const r of s.rows) sheet.addRow(cols.map((c) => cellValue(r[c])));
  }
  const buf = await book.xlsx.writeBuffer();
  return new Uint8Array(buf as ArrayBuffer);
}
