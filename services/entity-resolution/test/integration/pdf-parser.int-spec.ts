/**
 * The PDF parser on the built code (dist), in a plain Node process: PDF.js
 * loads itself with a dynamic import that Jest's CommonJS sandbox refuses.
 * A corpus PDF is read with pages, headings and title; an encrypted and a
 * damaged PDF end as ParseErrors naming the problem. Needs `pnpm build`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIST = join(__dirname, '../../dist/documents/parsers/parse-document.js');
const CORPUS = join(__dirname, '../../../../bench/rag/corpus');

/** A PDF whose standard security handler wants a password (its /U entry matches no empty password). */
function encryptedPdf(): Buffer {
  const objs = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>', `<< /Filter /Standard /V 1 /R 2 /Length 40 /P -4 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> >>`];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** parseDocument in a child Node process: the result, or the ParseError's code and message. */
function parse(bytes: Buffer, type: string, title: string): any {
  const script = `
    const { parseDocument } = await import(${JSON.stringify(DIST)});
    const bytes = Buffer.from(process.env.PDF_B64, 'base64');
    try { console.log(JSON.stringify({ ok: await parseDocument(bytes, ${JSON.stringify(type)}, ${JSON.stringify(title)}) })); }
    catch (e) { console.log(JSON.stringify({ error: { name: e.name, code: e.code, message: e.message } })); }`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, PDF_B64: bytes.toString('base64') }, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

it('reads a PDF with pages, headings by font size and its title', () => {
  const { ok: d } = parse(readFileSync(join(CORPUS, 'employee-handbook-2019.pdf')), 'application/pdf', 'employee-handbook-2019.pdf');
  expect([d.format, d.pageCount, d.title]).toEqual(['pdf', 4, 'Employee Handbook 2019']);
  expect(d.blocks.filter((b: any) => b.kind === 'heading').map((b: any) => b.text).slice(0, 3)).toEqual(['Employee Handbook 2019', '1. Policy HR-1901', '2. Policy HR-1902']);
  expect(d.blocks.find((b: any) => b.text.startsWith('Policy HR-1903')).page).toBe(2);
});

it('names an encrypted and a damaged PDF', () => {
  expect(parse(encryptedPdf(), 'application/pdf', 'secret.pdf')).toEqual({ error: { name: 'ParseError', code: 'encrypted', message: 'the PDF is encrypted (password protected)' } });
  expect(parse(Buffer.from('%PDF-1.7\ngarbage'), 'application/pdf', 'bad.pdf').error).toMatchObject({ code: 'corrupt', message: expect.stringContaining('the PDF cannot be read') });
});
