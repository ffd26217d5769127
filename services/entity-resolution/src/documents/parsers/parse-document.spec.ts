/**
 * The parsers on the shipped corpus files (bench/rag/corpus) and on damaged
 * and unknown files. PDF (PDF.js loads itself with a dynamic import Jest's
 * CommonJS sandbox refuses) is tested on the built code in
 * test/integration/pdf-parser.int-spec.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ParseError } from './parse-error.js';
import { parseDocument } from './parse-document.js';

const CORPUS = join(__dirname, '../../../../../bench/rag/corpus');
const file = (name: string) => readFileSync(join(CORPUS, name));

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => (e instanceof ParseError ? { code: e.code, message: e.message } : e));

describe('parseDocument', () => {
  it('reads a DOCX with its headings and a table block', async () => {
    const name = readFileSyncList().find((f) => f.endsWith('.docx'))!;
    const d = await parseDocument(file(name), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', name);
    expect(d.format).toBe('docx');
    expect(d.blocks.filter((b) => b.kind === 'heading').map((b) => b.text)).toEqual(expect.arrayContaining(['Summary', 'Budget', 'Work packages']));
    expect(d.blocks.find((b) => b.kind === 'table')?.text.split('\n')[0]).toBe('Item | Owner | Status');
  });

  it('reads an XLSX sheet by sheet, each table block led by the header row', async () => {
    const name = readFileSyncList().find((f) => f.endsWith('.xlsx'))!;
    const d = await parseDocument(file(name), '', name);
    expect([d.format, d.pageCount]).toEqual(['xlsx', 2]);
    expect(d.blocks.filter((b) => b.kind === 'heading').map((b) => b.text)).toEqual(['Spare parts', 'Safety equipment']);
    for (const t of d.blocks.filter((b) => b.kind === 'table')) expect(t.text.startsWith('SKU | Product | Warehouse | Quantity | Reorder level\n')).toBe(true);
  });

  it('reads CSV, HTML and Markdown', async () => {
    const csv = await parseDocument(Buffer.from('name,qty\npump,3\nvalve,9\n'), 'text/csv', 'stock.csv');
    expect(csv.blocks.find((b) => b.kind === 'table')?.text).toBe('name | qty\npump | 3\nvalve | 9');
    const html = await parseDocument(Buffer.from('<html><head><title>T</title><script>x()</script></head><body><h1>Top</h1><p>Hello <b>world</b>.</p><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></body></html>'), 'text/html', 'p.html');
    expect(html.blocks).toEqual([
      { kind: 'heading', text: 'Top', level: 1 },
      { kind: 'paragraph', text: 'Hello world.' },
      { kind: 'table', text: 'a | b\n1 | 2' },
    ]);
    const md = await parseDocument(Buffer.from('# A\n\ntext one\ncontinues\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n## B\n\n- item\n'), 'text/markdown', 'a.md');
    expect(md.blocks).toEqual([
      { kind: 'heading', text: 'A', level: 1 },
      { kind: 'paragraph', text: 'text one continues' },
      { kind: 'table', text: 'x | y\n1 | 2' },
      { kind: 'heading', text: 'B', level: 2 },
      { kind: 'paragraph', text: 'item' },
    ]);
  });

  it('names the problem of a damaged, an empty and an unknown file', async () => {
    expect(await failure(parseDocument(Buffer.from('PK\u0003\u0004garbage'), '', 'bad.docx'))).toMatchObject({ code: 'corrupt', message: expect.stringContaining('the DOCX file cannot be read') });
    expect(await failure(parseDocument(Buffer.alloc(0), 'text/plain', 'a.txt'))).toEqual({ code: 'empty', message: 'the file is empty' });
    expect(await failure(parseDocument(Buffer.from('# only a heading'), 'text/markdown', 'a.md'))).toEqual({ code: 'empty', message: 'the markdown file has no text to index' });
    expect(await failure(parseDocument(Buffer.from('MZ\u0000\u0000'), 'application/x-msdownload', 'run.exe'))).toMatchObject({ code: 'unsupported_type' });
  });
});

function readFileSyncList(): string[] {
  return (JSON.parse(readFileSync(join(CORPUS, '../questions.json'), 'utf8')).documents as Array<{ file: string }>).map((d) => d.file);
}
