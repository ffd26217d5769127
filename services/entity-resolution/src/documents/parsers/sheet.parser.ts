/**
 * XLSX and CSV through exceljs. Each sheet is a section named after it; its
 * rows become table blocks of at most `rowsPerBlock` rows, each repeating the
 * header row so a block read alone still says what its columns are.
 */
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { Block, ParsedDocument } from '../domain/parsed.js';
import { ParseError } from './parse-error.js';

function cellText(v: ExcelJS.CellValue): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object') {
    if ('richText' in v) return v.richText.map((r) => r.text).join('');
    if ('text' in v && typeof v.text === 'string') return v.text;
    if ('result' in v) return cellText(v.result as ExcelJS.CellValue);
    if ('error' in v) return String(v.error);
    return '';
  }
  return String(v);
}

function sheetBlocks(ws: ExcelJS.Worksheet, page: number, rowsPerBlock: number): Block[] {
  const rows: string[][] = [];
  ws.eachRow({ includeEmpty: false }, (row) => {
    const values = (row.values as ExcelJS.CellValue[]).slice(1).map(cellText);
    if (values.some((v) => v.trim())) rows.push(values.map((v) => v.replace(/\s+/g, ' ').trim()));
  });
  if (!rows.length) return [];
  const [header, ...body] = rows;
  const blocks: Block[] = [{ kind: 'heading', text: ws.name, level: 1, page, sheet: ws.name }];
  const line = (r: string[]) => r.join(' | ');
  if (!body.length) return [...blocks, { kind: 'table', text: line(header!), page, sheet: ws.name }];
  for (let i = 0; i < body.length; i += rowsPerBlock) {
    const part = body.slice(i, i + rowsPerBlock);
    blocks.push({ kind: 'table', text: [line(header!), ...part.map(line)].join('\n'), page, sheet: ws.name });
  }
  return blocks;
}

export async function parseSpreadsheet(bytes: Uint8Array, format: 'xlsx' | 'csv', rowsPerBlock = 40): Promise<ParsedDocument> {
  const wb = new ExcelJS.Workbook();
  try {
    if (format === 'xlsx') await wb.xlsx.load(Buffer.from(bytes) as never);
    else await wb.csv.read(Readable.from([Buffer.from(bytes)]));
  } catch (err) {
    throw new ParseError('corrupt', `the ${format.toUpperCase()} file cannot be read: ${(err as Error)?.message ?? String(err)}`);
  }
  const blocks: Block[] = [];
  wb.worksheets.forEach((ws, i) => blocks.push(...sheetBlocks(ws, i + 1, rowsPerBlock)));
  return { blocks, pageCount: Math.max(1, wb.worksheets.length), format };
}
