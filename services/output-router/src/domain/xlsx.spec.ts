import ExcelJS from 'exceljs';
import { renderXlsx, sheetName } from './xlsx.js';

async function book(bytes: Uint8Array): Promise<ExcelJS.Workbook> {
  const b = new ExcelJS.Workbook();
  await b.xlsx.load(Buffer.from(bytes) as never);
  return b;
}

describe('renderXlsx', () => {
  it('writes the rows under a header of every key, formulas kept as text', async () => {
    const b = await book(await renderXlsx({ rows: [{ a: 1, b: '=SUM(A1)' }, { a: 2, c: { x: true } }] }, 'Grants'));
    const sheet = b.worksheets[0]!;
    expect(sheet.name).toBe('Grants');
    expect(sheet.getRow(1).values).toEqual([undefined, 'a', 'b', 'c']);
    expect(sheet.getRow(2).values).toEqual([undefined, 1, '=SUM(A1)']);
    expect(sheet.getCell('B2').type).toBe(ExcelJS.ValueType.String);
    expect(sheet.getRow(3).values).toEqual([undefined, 2, undefined, '{"x":true}']);
  });

  it("writes a sheet per section of an output block's result", async () => {
    const b = await book(
      await renderXlsx({ sections: [{ title: 'Grants: 2026', content: [{ id: 1 }] }, { title: 'Grants: 2026', content: { data: [{ id: 2 }] } }] }),
    );
    expect(b.worksheets.map((w) => w.name)).toEqual(['Grants  2026', 'Grants  2026 2']);
    expect(b.worksheets[1]!.getRow(2).values).toEqual([undefined, 2]);
  });
});

describe('sheetName', () => {
  it('drops characters Excel refuses, keeps 31 characters and makes names unique', () => {
    const taken = new Set<string>();
    expect(sheetName('a/b?c*[d]:e\\f', taken)).toBe('a b c  d  e f');
    expect(sheetName('x'.repeat(40), taken)).toHaveLength(31);
    expect(sheetName('', taken)).toBe('Sheet');
    expect(sheetName('sheet', taken)).toBe('sheet 2');
  });
});
