/**
 * Documents across processes (startStack({ outputRouter, entityResolution })):
 * a file uploaded through the gateway is stored by output-router, whose
 * outbox publishes `af.document.<id>.created`; entity-resolution's consumer
 * fetches it over gRPC, parses, chunks, embeds (offline embedder) and indexes
 * it (status on its index row); `search_documents` in a playbook run answers
 * the right chunk with file, page and section. Another user's documents never
 * appear; a new version re-indexes; a delete removes; a damaged PDF, a file
 * over the indexing limit and an unknown file type end as failed with a
 * code naming the problem. Real PostgreSQL and NATS JetStream.
 *
 * Needs `pnpm build`.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { http, registerUser, startStack, type GatewayUser, type Stack } from '@af/testing';

let stack: Stack;
let alice: GatewayUser;
let bob: GatewayUser;
const CORPUS = join(__dirname, '../../../../bench/rag/corpus');

const req = (user: GatewayUser, method: string, path: string, body?: unknown) =>
  http(method, `${stack.gatewayUrl}${path}`, { token: user.token, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  stack = await startStack({
    outputRouter: true,
    entityResolution: true,
    // Every vector search through the scan threads (the size floor at 0), as a large owner's would.
    env: { 'entity-resolution': { DOCS_MAX_INGEST_BYTES: '20000', DOCS_SEARCH_THREADS_MIN_CHUNKS: '0' } },
  });
  alice = await registerUser(stack.gatewayUrl, 'alice-docs@example.com');
  bob = await registerUser(stack.gatewayUrl, 'bob-docs@example.com');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function upload(user: GatewayUser, title: string, contentType: string, content: Buffer | string): Promise<string> {
  const body = typeof content === 'string' ? { title, content_type: contentType, content } : { title, content_type: contentType, content_base64: content.toString('base64') };
  const res = await req(user, 'POST', '/api/agent-factory/workspace/documents', body);
  if (res.status !== 201) throw new Error(`upload ${title}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.document.id;
}

/** The document's index row once its ingestion of `version` ended (indexed, failed or deleted). */
async function indexed(documentId: string, version = 1, ended = ['indexed', 'failed', 'deleted'], timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await stack.db.query<any>('SELECT * FROM entity_resolution.doc_index_documents WHERE document_id = $1', [documentId]);
    if (row && row.version >= version && ended.includes(row.status)) return row;
    if (Date.now() > deadline) throw new Error(`document ${documentId} not ingested: ${JSON.stringify(row)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function search(user: GatewayUser, query: string, params: Record<string, unknown> = {}): Promise<any> {
  const playbook = `id: ask-docs\nname: Ask my documents\nsteps:\n  - name: docs\n    step_type: tool\n    action: search_documents\n    inputs: { query: ${JSON.stringify(query)} }\n    params: ${JSON.stringify({ max_results: 8, ...params })}\n`;
  const started = await req(user, 'POST', '/api/v1/runs', { playbook, inputs: {} });
  if (started.status !== 201) throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
  for (;;) {
    const res = await req(user, 'GET', `/api/v1/runs/${started.body.run.id}`);
    const run = res.body.run;
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const outputOf = (run: any) => run.nodes.find((n: any) => n.node_id === 'docs').output;

describe('documents: upload → ingested → search_documents', () => {
  let pdfId = '';
  let notesId = '';

  it('indexes an uploaded PDF and Markdown file and answers the right chunk with its sources', async () => {
    pdfId = await upload(alice, 'employee-handbook-2019.pdf', 'application/pdf', readFileSync(join(CORPUS, 'employee-handbook-2019.pdf')));
    notesId = await upload(alice, 'ops-notes.md', 'text/markdown', '# Ops notes\n\n## Harbour cranes\n\nThe crane Kestrel-7 at pier four is serviced every 90 days by Halvard Marine.\n\n## Canteen\n\nThe canteen opens at seven.\n');
    await upload(bob, 'bob-notes.md', 'text/markdown', '# Bob\n\n## Harbour cranes\n\nThe crane Kestrel-7 is serviced every 30 days by Bob Secret Services.\n');
    const pdf = await indexed(pdfId);
    expect([pdf.status, pdf.format, pdf.page_count, pdf.embedder, pdf.description_source]).toEqual(['indexed', 'pdf', 4, 'offline-wordvec-v1', 'extractive']);
    expect(pdf.description.length).toBeGreaterThan(40);
    expect(pdf.progress).toBe(1);
    expect((await indexed(notesId)).status).toBe('indexed');

    const run = await search(alice, 'How many days do employees have to report a safety incident under policy HR-1901?');
    expect([run.status, run.error]).toEqual(['completed', null]);
    const out = outputOf(run);
    const top = out.documents[0];
    expect(top.document_id).toBe(pdfId);
    expect(top.text).toContain('Policy HR-1901 (2019): employees must report a safety incident within');
    expect(top.page).toBe(1);
    expect(top.section).toContain('Policy HR-1901');
    expect(out.sources[0]).toEqual(expect.objectContaining({ n: 1, document_id: pdfId, file: 'employee-handbook-2019.pdf', page: 1, chunk_id: top.chunk_id }));
    expect(out.confidence).toBeGreaterThan(0.5);
    expect(out.retrieval).toEqual({ mode: 'hybrid', embedder: 'offline-wordvec-v1' });
  });

  it("never answers another user's documents", async () => {
    const a = outputOf(await search(alice, 'Kestrel-7 crane service interval'));
    expect(a.documents[0].document_id).toBe(notesId);
    expect(a.documents[0].text).toContain('every 90 days');
    expect(a.documents.every((d: any) => [pdfId, notesId].includes(d.document_id))).toBe(true);
    const b = outputOf(await search(bob, 'Kestrel-7 crane service interval'));
    expect(b.documents.length).toBeGreaterThan(0);
    expect(b.documents.every((d: any) => ![pdfId, notesId].includes(d.document_id))).toBe(true);
    expect(JSON.stringify(b)).not.toContain('90 days');
    // Those searches ran on the scan threads (none fell back to the event loop).
    expect(stack.logs()).toMatch(/"searchThreads":2.*"document index ready"|"document index ready".*"searchThreads":2/);
    expect(stack.logs()).not.toContain('vector scan threads failed');
  });

  it('re-indexes a new version and removes a deleted document', async () => {
    const v2 = await req(alice, 'POST', `/api/agent-factory/workspace/documents/${notesId}/versions`, {
      content_type: 'text/markdown',
      content: '# Ops notes\n\n## Harbour cranes\n\nThe crane Kestrel-7 at pier four is now serviced every 45 days by Nordhavn Lifting.\n',
    });
    expect(v2.status).toBe(201);
    expect((await indexed(notesId, 2)).version).toBe(2);
    const after = outputOf(await search(alice, 'Kestrel-7 crane service interval'));
    expect(after.documents[0].text).toContain('every 45 days');
    expect(JSON.stringify(after)).not.toContain('every 90 days');
    expect((await req(alice, 'DELETE', `/api/agent-factory/workspace/documents/${notesId}`)).status).toBe(204);
    expect((await indexed(notesId, 2, ['deleted'])).status).toBe('deleted');
    const gone = outputOf(await search(alice, 'Kestrel-7 crane service interval'));
    expect(gone.documents.every((d: any) => d.document_id !== notesId)).toBe(true);
  });

  it('reports a damaged PDF, a file over the indexing limit and an unknown file type on the document', async () => {
    const broken = await upload(alice, 'broken.pdf', 'application/pdf', Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >>\nthis is not a pdf body\n%%EOF'));
    const big = await upload(alice, 'big-notes.md', 'text/markdown', `# Big\n\n${'word '.repeat(5000)}`);
    const json = await upload(alice, 'settings.json', 'application/json', '{"a": 1}');
    const [b, g, j] = [await indexed(broken), await indexed(big), await indexed(json)];
    expect([b.status, b.error_code]).toEqual(['failed', 'corrupt']);
    expect(b.error).toContain('the PDF cannot be read');
    expect([g.status, g.error_code]).toEqual(['failed', 'too_large']);
    expect(g.error).toContain('DOCS_MAX_INGEST_BYTES');
    expect([j.status, j.error_code]).toEqual(['failed', 'unsupported_type']);
    expect(j.error).toContain('unsupported file type application/json');
  });

  it('refuses a 200 MB upload up front with 413 naming the limit, and stores nothing', async () => {
    const declared = 200 * 1024 * 1024;
    const started = Date.now();
    const res = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const r = httpRequest(
        `${stack.gatewayUrl}/api/agent-factory/workspace/documents`,
        { method: 'POST', headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json', 'content-length': String(declared) } },
        (out) => {
          let text = '';
          out.on('data', (c) => (text += c));
          out.on('end', () => resolve({ status: out.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      r.on('error', reject);
      // The first 64 KiB of a base64 PDF upload; the gateway answers from the declared length.
      r.write(`{"title":"huge.pdf","content_type":"application/pdf","content_base64":"${'A'.repeat(64 * 1024)}`);
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(res.body.error.violations).toEqual([
      { field: '(body)', reason: `is ${declared} bytes; the limit is ${2 * 1024 * 1024} bytes (BODY_LIMIT_BYTES)`, code: 'payload_too_large' },
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
    const [{ n }] = await stack.db.query<any>("SELECT count(*)::int AS n FROM entity_resolution.doc_index_documents WHERE title = 'huge.pdf'");
    expect(n).toBe(0);
  });

  it('refuses bad search inputs naming the field', async () => {
    const run = await search(alice, 'x', { mode: 'semantic' });
    const node = run.nodes.find((n: any) => n.node_id === 'docs');
    // The step fails (the run goes on by the playbook's default error policy).
    expect(node.status).toBe('failed');
    expect(JSON.stringify(node.error)).toContain('params.mode');
  });
});
