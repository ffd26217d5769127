/**
 * Questions answered by the master agent, through the real processes
 * (gateway, planner, orchestrator, approval, connector-runtime,
 * output-router, entity-resolution; PostgreSQL and NATS JetStream): files
 * uploaded to the workspace are ingested into the document index; a
 * question is planned by the model (the planner's scripted model: master
 * plan, memory extraction, composer, in that order per question), compiled
 * by the master-plan compiler, run by the orchestrator (two RAG agents in
 * one stage, then the mail agent behind its approval), and composed with
 * [n] citations that name the retrieved chunks. A denied mail send is
 * explained in the answer and nothing is sent; a fact the memory extractor
 * kept feeds the next plan; another user's documents never appear. Without
 * a model, /query is a clear error.
 *
 * Runs with either event bus: `jetstream` (one process per service) or
 * `memory` (every service in one process, as `pnpm start` runs them).
 * Needs `pnpm build`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { http, readSse, registerUser, startFixtureServer, startStack, type FixtureServer, type GatewayUser, type Stack } from '@af/testing';

const CORPUS = join(__dirname, '../../../../bench/rag/corpus');
const NOTES = '# Ops notes\n\n## Harbour cranes\n\nThe crane Kestrel-7 at pier four is serviced every 90 days by Halvard Marine.\n\n## Canteen\n\nThe canteen opens at seven.\n';
const BOB_NOTES = '# Bob\n\n## Harbour cranes\n\nThe crane Kestrel-7 is serviced every 30 days by Bob Secret Services.\n';

const rag = (id: string, task: string, depends_on: string[] = []) => ({ agent_id: id, agent_name: 'rag_agent', task, entities: {}, depends_on });
const mail = (task: string, depends_on: string[] = []) => ({ agent_id: 'mail_agent_0', agent_name: 'mail_agent', task, tools: ['mail__send_message'], depends_on });
const nothing = { json: { found: false } };

/** The planner's model, one step per call, in the order the tests ask. */
const PLANNER_SCRIPT = [
  // 1. alice, streamed: two RAG agents in parallel, then the mail agent (needs approval) on the first one's output.
  {
    json: {
      analysis: { intent: 'lookup_and_email', entities: { names: ['Kestrel-7'] } },
      execution_plan: [rag('rag_agent_0', 'Kestrel-7 crane service interval'), rag('rag_agent_1', 'Policy HR-1901 safety incident report deadline'), mail('Email the Kestrel-7 service interval to harbour.master@example.com', ['rag_agent_0'])],
    },
  },
  { json: { found: true, critical_facts: { user_name: 'Dana', company_name: 'Acme Shipping', job_title: 'ops lead' }, preferences: { tone: 'brief' }, extra: 'dropped' } },
  // The composer (streamed: plain text, word by word) cites source 1 and a source that does not exist (removed), and does not mention the denied mail agent (the pipeline explains it).
  'Dana, the crane Kestrel-7 is serviced every 90 days by Halvard Marine [1]. See also [99].',
  // 2. alice, same conversation, POST /query.
  { json: { analysis: { intent: 'lookup' }, execution_plan: [rag('rag_agent_0', 'Kestrel-7 crane servicing company')] } },
  nothing,
  { json: { answer: 'Halvard Marine services Kestrel-7 [1].' } },
  // 3. bob asks the same question.
  { json: { analysis: { intent: 'lookup' }, execution_plan: [rag('rag_agent_0', 'Kestrel-7 crane service interval')] } },
  nothing,
  { json: { answer: 'Every 30 days [1].' } },
  // 4. alice asks for a mail on POST /query: no approval dialog there.
  { json: { analysis: { intent: 'email' }, execution_plan: [mail('Email the canteen hours to the team')] } },
  nothing,
  { json: { answer: 'I could not send the email.' } },
  // 5. a plan naming an agent this deployment does not have, twice.
  { json: { execution_plan: [{ agent_id: 'code_agent_0', agent_name: 'code_agent', task: 'run code' }] } },
  { json: { execution_plan: [{ agent_id: 'code_agent_0', agent_name: 'code_agent', task: 'run code' }] } },
  // 6. alice, streamed, approves the mail agent this time.
  { json: { analysis: { intent: 'email' }, execution_plan: [mail('Email the Kestrel-7 service interval to harbour.master@example.com')] } },
  nothing,
  'I emailed the service interval to the harbour master.',
  // 7. alice, POST /query with an Idempotency-Key (the repeat plans nothing).
  { json: { analysis: { intent: 'lookup' }, execution_plan: [rag('rag_agent_0', 'canteen opening hours')] } },
  nothing,
  { json: { answer: 'The canteen opens at seven [1].' } },
  // 8. bob, the same key (keys are per user).
  { json: { analysis: { intent: 'lookup' }, execution_plan: [rag('rag_agent_0', 'Kestrel-7 crane service interval')] } },
  nothing,
  { json: { answer: 'Every 30 days [1].' } },
  // 9. alice, the key again once it expired, with another question.
  { json: { analysis: { intent: 'lookup' }, execution_plan: [rag('rag_agent_0', 'Kestrel-7 crane servicing company')] } },
  nothing,
  { json: { answer: 'Halvard Marine [1].' } },
  // 10. alice, streamed with an Idempotency-Key (the repeat streams the stored answer).
  { json: { analysis: { intent: 'lookup' }, execution_plan: [rag('rag_agent_0', 'canteen opening hours')] } },
  nothing,
  'The canteen opens at seven [1].',
  // 11. alice, streamed: the composer's model fails after two chunks.
  { json: { analysis: { intent: 'lookup' }, execution_plan: [rag('rag_agent_0', 'canteen opening hours')] } },
  nothing,
  { chunks: ['The canteen ', 'opens '], error: 'composer model overloaded (529)' },
];

/** The orchestrator's model: the approved mail agent's tool loop (send, then its AgentOutput). */
const ORCHESTRATOR_SCRIPT = [
  { toolCalls: [{ name: 'mail__send_message', args: { to: 'harbour.master@example.com', subject: 'Kestrel-7 service interval' } }] },
  '{"task_done": true, "result": "Sent the Kestrel-7 service interval to harbour.master@example.com.", "data": {"action": "send"}}',
];
const CLIENT = { client_id: 'mail-app', client_secret: 'mail-app-secret-0123456789' };

function mailConnector(base: string): string {
  return `
id: mail
name: Mail
type: rest_api
version: "1.0"
connection:
  base_url: ${base}
  auth:
    type: oauth2
    grant_type: authorization_code
    authorize_url: ${base}/o/authorize
    token_url: ${base}/o/token
    scopes: [mail.send]
endpoints:
  list_messages:
    method: GET
    path: /gmail/v1/users/me/messages
  send_message:
    method: POST
    path: /gmail/v1/users/me/messages/send
    parameters:
      - { name: to, type: string, required: true }
      - { name: subject, type: string, required: true }
`;
}

/** The query routes on a stack with the planner's scripted model, on `bus`. */
export function querySuite(bus: 'memory' | 'jetstream'): void {
  let stack: Stack;
  let provider: FixtureServer;
  let alice: GatewayUser;
  let bob: GatewayUser;
  let notesId = '';
  let pdfId = '';
  let bobNotesId = '';
  let conversationId = '';
  const sent: unknown[] = [];

  const req = (user: GatewayUser, method: string, path: string, body?: unknown) => http(method, `${stack.gatewayUrl}${path}`, { token: user.token, ...(body !== undefined ? { body } : {}) });

  async function upload(user: GatewayUser, title: string, contentType: string, content: Buffer | string): Promise<string> {
    const body = typeof content === 'string' ? { title, content_type: contentType, content } : { title, content_type: contentType, content_base64: content.toString('base64') };
    const res = await req(user, 'POST', '/api/agent-factory/workspace/documents', body);
    if (res.status !== 201) throw new Error(`upload ${title}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.document.id;
  }

  async function indexed(documentId: string, timeoutMs = 60_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await stack.db.query<any>('SELECT * FROM entity_resolution.doc_index_documents WHERE document_id = $1', [documentId]);
      if (row && ['indexed', 'failed'].includes(row.status)) return row;
      if (Date.now() > deadline) throw new Error(`document ${documentId} not ingested: ${JSON.stringify(row)}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  beforeAll(async () => {
    provider = await startFixtureServer();
    // A Gmail-shaped provider: consent that redirects back with a code, a token endpoint, and a send API that needs the user's token.
    const codes = new Set<string>();
    provider.route('GET', '/o/authorize', (r) => {
      const q = r.query as Record<string, string>;
      const back = new URL(q.redirect_uri!);
      const code = `code-${codes.size + 1}`;
      codes.add(code);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.state!);
      return { status: 302, headers: { location: back.toString() } };
    });
    provider.route('POST', '/o/token', (r) => {
      const form = new URLSearchParams(r.body);
      if (form.get('client_secret') !== CLIENT.client_secret || !codes.delete(form.get('code') ?? '')) return { status: 400, json: { error: 'invalid_grant' } };
      return { json: { access_token: 'at-alice', refresh_token: 'rt-alice', token_type: 'Bearer', expires_in: 3600 } };
    });
    provider.route('POST', '/gmail/v1/users/me/messages/send', (r) => {
      if (r.headers.authorization !== 'Bearer at-alice') return { status: 401, json: { error: 'invalid_token' } };
      sent.push(JSON.parse(r.body || '{}'));
      return { json: { id: `sent-${sent.length}` } };
    });
    stack = await startStack({
      bus,
      outputRouter: true,
      entityResolution: true,
      env: { planner: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify(PLANNER_SCRIPT) }, orchestrator: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify(ORCHESTRATOR_SCRIPT) } },
    });
    alice = await registerUser(stack.gatewayUrl, `query-alice-${bus}@example.com`);
    bob = await registerUser(stack.gatewayUrl, `query-bob-${bus}@example.com`);
    expect((await req(alice, 'POST', '/api/agent-factory/connectors', { yaml: mailConnector(provider.url), credentials: CLIENT })).status).toBe(201);
    notesId = await upload(alice, 'ops-notes.md', 'text/markdown', NOTES);
    pdfId = await upload(alice, 'employee-handbook-2019.pdf', 'application/pdf', readFileSync(join(CORPUS, 'employee-handbook-2019.pdf')));
    bobNotesId = await upload(bob, 'bob-notes.md', 'text/markdown', BOB_NOTES);
    for (const id of [notesId, pdfId, bobNotesId]) expect((await indexed(id)).status).toBe('indexed');
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await provider?.close();
  });

  type Frame = { type: string; payload: Record<string, any>; runId?: string; nodeId?: string };

  describe(`POST /query/stream (${bus} bus)`, () => {
    it('plans two RAG agents in parallel and a gated mail agent; the denial is explained and [n] cite the retrieved chunks', async () => {
      const denied: Array<Promise<unknown>> = [];
      const out = await readSse(
        `${stack.gatewayUrl}/query/stream`,
        { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
        {
          method: 'POST',
          body: JSON.stringify({ query: "I'm Dana, ops lead at Acme Shipping. How often is Kestrel-7 serviced, what is the HR-1901 deadline, and email the interval to the harbour master." }),
          timeoutMs: 90_000,
          until: (f) => {
            const frame = JSON.parse(f.data) as Frame;
            if (frame.type === 'hitl_required') denied.push(req(alice, 'POST', '/hitl/respond', { request_id: frame.payload.request_id, decision: 'denied' }));
            return frame.type === 'done' || frame.type === 'error';
          },
        },
      );
      expect(out.status).toBe(200);
      const frames = out.frames.map((f) => JSON.parse(f.data) as Frame);
      const types = frames.map((f) => f.type);
      const get = (type: string) => frames.find((f) => f.type === type)!;
      expect(types[0]).toBe('plan');
      expect(types).not.toContain('error');

      // The plan: the model's agents, compiled into stages (the two RAG agents together, then the gate, then the mail agent).
      const plan = get('plan').payload;
      expect(plan.execution_plan.map((a: any) => a.agent_id)).toEqual(['rag_agent_0', 'rag_agent_1', 'mail_agent_0']);
      expect(plan.execution_plan[2]).toMatchObject({ tools: ['mail__send_message'], hitl_tools: ['mail__send_message'] });
      expect(plan.stages).toEqual([['rag_agent_0', 'rag_agent_1'], ['mail_agent_0__approval'], ['mail_agent_0']]);
      expect(plan.memory).toEqual({ critical_facts: {}, preferences: {} });
      conversationId = plan.conversation_id;

      // The seed's HITL events: required (agent, tools, task), then denied.
      const required = get('hitl_required').payload;
      expect(required).toMatchObject({ agent_id: 'mail_agent_0', agent_name: 'mail_agent', tool_names: ['mail__send_message'], task_description: 'Email the Kestrel-7 service interval to harbour.master@example.com' });
      expect(required.timeout_seconds).toBeGreaterThan(100);
      expect((await Promise.all(denied)).map((r: any) => r.status)).toEqual([200]);
      expect(get('hitl_denied').payload).toEqual({ request_id: required.request_id, agent_id: 'mail_agent_0' });
      expect(types.indexOf('hitl_required')).toBeLessThan(types.indexOf('hitl_denied'));
      expect(types.indexOf('hitl_denied')).toBeLessThan(types.indexOf('token'));

      // Both RAG agents ran (and finished before the mail agent's gate opened).
      const completed = frames.filter((f) => f.type === 'node_complete').map((f) => f.nodeId);
      expect(completed).toEqual(expect.arrayContaining(['rag_agent_0', 'rag_agent_1']));

      // Sources are numbered: the first RAG agent's chunks first; [1] is the Kestrel-7 chunk of ops-notes.md.
      const { sources, citations } = get('sources').payload;
      expect(sources[0]).toMatchObject({ n: 1, type: 'document', agent_id: 'rag_agent_0', source: 'ops-notes.md', document_id: notesId, section: expect.stringContaining('Harbour cranes') });
      expect(sources[0].excerpt).toContain('every 90 days by Halvard Marine');
      expect(sources.map((s: any) => s.n)).toEqual(sources.map((_: unknown, i: number) => i + 1));
      const hr = sources.find((s: any) => s.agent_id === 'rag_agent_1' && s.document_id === pdfId);
      expect(hr).toMatchObject({ source: 'employee-handbook-2019.pdf', page: 1 });
      expect(citations).toEqual([{ n: 1, chunk_id: sources[0].chunk_id, document_id: notesId, url: null }]);
      expect(sources.every((s: any) => s.document_id !== bobNotesId)).toBe(true);

      // The answer, token by token as the model wrote it: the bad citation removed on the way, the denial explained at the end.
      const tokens = frames.filter((f) => f.type === 'token').map((f) => f.payload.text as string);
      expect(tokens.length).toBeGreaterThanOrEqual(10);
      expect(types).not.toContain('answer');
      expect(types.lastIndexOf('token')).toBeLessThan(types.indexOf('sources'));
      expect(types.indexOf('sources')).toBeLessThan(types.indexOf('done'));
      const answer = tokens.join('');
      expect(tokens.some((t) => t.includes('['))).toBe(true);
      expect(answer).toContain('serviced every 90 days by Halvard Marine [1]');
      expect(answer).not.toContain('[99]');
      expect(answer).toContain('mail_agent did not do "Email the Kestrel-7 service interval to harbour.master@example.com" (tools: mail__send_message): you denied the approval it needs.');
      expect(answer).toBe(
        'Dana, the crane Kestrel-7 is serviced every 90 days by Halvard Marine [1]. See also .\n\nmail_agent did not do "Email the Kestrel-7 service interval to harbour.master@example.com" (tools: mail__send_message): you denied the approval it needs.',
      );
      const done = get('done').payload;
      expect(done).toMatchObject({ conversation_id: conversationId, invalid_citations: [99], not_done: [{ agent_id: 'mail_agent_0', reason: 'denied_by_user', tools: ['mail__send_message'] }] });
      // The memory extractor ran beside the agents: only the known fields are kept.
      expect(done.memory).toEqual({ critical_facts: { user_name: 'Dana', company_name: 'Acme Shipping', job_title: 'ops lead' }, preferences: { tone: 'brief' } });
      // Nothing was sent.
      expect(provider.count('POST', '/gmail/v1/users/me/messages/send')).toBe(0);
    });
  });

  describe(`POST /query (${bus} bus)`, () => {
    it('uses the memory kept from the last question in the next plan, in the same conversation', async () => {
      const res = await req(alice, 'POST', '/query', { query: 'Who services it?', conversation_id: conversationId });
      expect(res.status).toBe(200);
      expect(res.body.plan.memory).toEqual({ critical_facts: { user_name: 'Dana', company_name: 'Acme Shipping', job_title: 'ops lead' }, preferences: { tone: 'brief' } });
      expect(res.body.conversation_id).toBe(conversationId);
      expect(res.body.answer).toBe('Halvard Marine services Kestrel-7 [1].');
      expect(res.body.sources[0]).toMatchObject({ n: 1, document_id: notesId });
      expect(res.body.citations).toEqual([{ n: 1, chunk_id: res.body.sources[0].chunk_id, document_id: notesId, url: null }]);
      // The chunk cited is the one that says so.
      const [chunk] = await stack.db.query<any>('SELECT owner_user_id, document_id, text FROM entity_resolution.doc_chunks WHERE id = $1', [res.body.citations[0].chunk_id]);
      expect(chunk).toMatchObject({ document_id: notesId, text: expect.stringContaining('Halvard Marine') });
      expect((await req(alice, 'GET', '/query/memory')).body.memory.critical_facts.user_name).toBe('Dana');

      // Stored: both exchanges in the conversation, the query records, the session.
      const messages = await stack.db.query<any>('SELECT role, content FROM planner.conversation_messages WHERE conversation_id = $1 ORDER BY id', [conversationId]);
      expect(messages.map((m: any) => m.role)).toEqual(['user', 'agent', 'user', 'agent']);
      expect(messages[3].content).toBe('Halvard Marine services Kestrel-7 [1].');
      const records = await stack.db.query<any>('SELECT run_id, session_id FROM planner.query_records WHERE conversation_id = $1 ORDER BY created_at', [conversationId]);
      expect(records).toHaveLength(2);
      expect(records.every((r: any) => r.run_id)).toBe(true);
    });

    it("never answers from another user's documents or memory", async () => {
      const res = await req(bob, 'POST', '/query', { query: 'How often is Kestrel-7 serviced?' });
      expect(res.status).toBe(200);
      expect(res.body.plan.memory).toEqual({ critical_facts: {}, preferences: {} });
      expect(res.body.sources.length).toBeGreaterThan(0);
      expect(res.body.sources.every((s: any) => s.document_id === bobNotesId)).toBe(true);
      expect(JSON.stringify(res.body)).not.toMatch(/90 days|Halvard|Dana/);
      // Alice's conversation is not Bob's.
      const other = await req(bob, 'POST', '/query', { query: 'and then?', conversation_id: conversationId });
      expect(other.status).toBe(404);
    });

    it('skips an agent that needs approval (no dialog on POST /query) and says why', async () => {
      const res = await req(alice, 'POST', '/query', { query: 'Email the canteen hours to the team' });
      expect(res.status).toBe(200);
      expect(res.body.not_done).toEqual([expect.objectContaining({ agent_id: 'mail_agent_0', reason: 'hitl_skipped_non_streaming' })]);
      expect(res.body.answer).toContain('it needs your approval, which only the streaming endpoint (/query/stream) can ask for');
      expect(provider.count('POST', '/gmail/v1/users/me/messages/send')).toBe(0);
    });

    it('refuses a plan naming an agent the deployment does not have, naming the field', async () => {
      const res = await req(alice, 'POST', '/query', { query: 'run some code' });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain("'code_agent' is not an agent of this deployment");
      expect(res.body.error.violations[0]).toMatchObject({ field: 'master_plan.execution_plan[0].agent_name', code: 'unknown_agent' });
    });

    it('names the field of bad input', async () => {
      const cases: Array<[unknown, string]> = [
        [{}, 'query'],
        [{ query: '   ' }, 'query'],
        [{ query: 'x'.repeat(4001) }, 'query'],
        [{ query: 'hi', conversation_id: 'nope' }, 'conversation_id'],
        [{ query: 'hi', session_id: 42 }, 'session_id'],
        [{ query: 'hi', colour: 'red' }, 'colour'],
      ];
      for (const [body, field] of cases) {
        const res = await req(alice, 'POST', '/query', body);
        expect([res.status, res.body.error.violations[0].field]).toEqual([400, field]);
      }
      const stream = await req(alice, 'POST', '/query/stream', { query: '' });
      expect([stream.status, stream.body.error.violations[0].field]).toEqual([400, 'query']);
      const unknownSession = await req(alice, 'POST', '/query', { query: 'hi', session_id: '00000000-0000-4000-8000-000000000000' });
      expect(unknownSession.status).toBe(404);
    });
  });
  describe(`the mail agent after approval (${bus} bus)`, () => {
    it("sends through the user's own OAuth connection once the user approves, and the answer says so", async () => {
      const begun = await req(alice, 'GET', '/api/agent-factory/connectors/mail/oauth/auth-url');
      expect(begun.status).toBe(200);
      const back = await http('GET', begun.body.auth_url);
      expect(back.body.connection).toMatchObject({ connector_id: 'mail', status: 'active' });

      const approved: Array<Promise<{ status: number }>> = [];
      const out = await readSse(
        `${stack.gatewayUrl}/query/stream`,
        { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
        {
          method: 'POST',
          body: JSON.stringify({ query: 'Email the Kestrel-7 service interval to the harbour master.' }),
          timeoutMs: 90_000,
          until: (f) => {
            const frame = JSON.parse(f.data) as Frame;
            if (frame.type === 'hitl_required') approved.push(req(alice, 'POST', '/hitl/respond', { request_id: frame.payload.request_id, decision: 'approved' }));
            return frame.type === 'done' || frame.type === 'error';
          },
        },
      );
      const frames = out.frames.map((f) => JSON.parse(f.data) as Frame);
      const types = frames.map((f) => f.type);
      expect(types).toEqual(expect.arrayContaining(['plan', 'hitl_required', 'hitl_approved', 'token', 'done']));
      expect((await Promise.all(approved)).map((r) => r.status)).toEqual([200]);
      expect(sent).toEqual([{ to: 'harbour.master@example.com', subject: 'Kestrel-7 service interval' }]);
      const done = frames.find((f) => f.type === 'done')!.payload;
      expect(done.not_done).toEqual([]);
      const tokens = frames.filter((f) => f.type === 'token').map((f) => f.payload.text);
      expect(tokens.length).toBeGreaterThanOrEqual(2);
      expect(tokens.join('')).toBe('I emailed the service interval to the harbour master.');
      const run = (await req(alice, 'GET', `/api/v1/runs/${done.run_id}`)).body.run;
      expect(run.nodes.find((n: any) => n.node_id === 'mail_agent_0').output).toMatchObject({ task_done: true, result: 'Sent the Kestrel-7 service interval to harbour.master@example.com.' });
    });
  });

  describe(`Idempotency-Key on POST /query and /query/stream (${bus} bus)`, () => {
    const keyed = (user: GatewayUser, path: string, key: string, body: unknown) => http('POST', `${stack.gatewayUrl}${path}`, { token: user.token, headers: { 'idempotency-key': key }, body });
    const stream = (user: GatewayUser, body: unknown, key?: string) =>
      readSse(
        `${stack.gatewayUrl}/query/stream`,
        { authorization: `Bearer ${user.token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
        { method: 'POST', body: JSON.stringify(body), timeoutMs: 90_000, until: (f) => ['done', 'error'].includes((JSON.parse(f.data) as Frame).type) },
      ).then((out) => ({ status: out.status, frames: out.frames.map((f) => JSON.parse(f.data) as Frame) }));
    const records = async (queryText: string) => stack.db.query<any>('SELECT id, run_id FROM planner.query_records WHERE query = $1', [queryText]);

    it('answers the same request with the same key with the first query and run, planning nothing again', async () => {
      const body = { query: 'When does the canteen open?' };
      const first = await keyed(alice, '/query', 'canteen-1', body);
      expect(first.status).toBe(200);
      expect(first.body.answer).toBe('The canteen opens at seven [1].');
      expect(first.body.plan.replayed).toBe(false);
      const again = await keyed(alice, '/query', 'canteen-1', body);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ query_id: first.body.query_id, run_id: first.body.run_id, answer: first.body.answer, plan: { replayed: true, query_id: first.body.query_id } });
      // One record, one run: the repeat neither planned nor ran anything.
      expect(await records(body.query)).toEqual([{ id: first.body.query_id, run_id: first.body.run_id }]);
      expect(await stack.db.query('SELECT 1 FROM orchestrator.runs WHERE id = $1', [first.body.run_id])).toHaveLength(1);
    });

    it('refuses the key with another request (naming Idempotency-Key); keys are per user and free again once expired', async () => {
      for (const [path, body] of [
        ['/query', { query: 'When does the canteen close?' }],
        ['/query', { query: 'When does the canteen open?', session_id: '00000000-0000-4000-8000-000000000000' }],
        ['/query/stream', { query: 'When does the canteen open?' }],
      ] as const) {
        const res = await keyed(alice, path, 'canteen-1', body);
        expect([res.status, res.body.error.violations[0]]).toEqual([409, expect.objectContaining({ field: 'Idempotency-Key', code: 'idempotency_key_reused' })]);
      }
      expect(await records('When does the canteen close?')).toEqual([]);

      // Bob's key of the same name is his own.
      const bobs = await keyed(bob, '/query', 'canteen-1', { query: 'How often is Kestrel-7 serviced, Bob?' });
      expect(bobs.status).toBe(200);
      expect(bobs.body.plan.replayed).toBe(false);
      expect(bobs.body.sources.every((s: any) => s.document_id === bobNotesId)).toBe(true);

      // Expired (QUERY_IDEMPOTENCY_TTL_SECONDS): the key plans a new question.
      await stack.db.query("UPDATE planner.query_idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'canteen-1'");
      const later = await keyed(alice, '/query', 'canteen-1', { query: 'Who services Kestrel-7 now?' });
      expect(later.status).toBe(200);
      expect(later.body).toMatchObject({ answer: 'Halvard Marine [1].', plan: { replayed: false } });
    });

    it('streams the first answer again for a repeated streamed request, token by token', async () => {
      const body = { query: 'And when does the canteen open, streamed?' };
      const first = await stream(alice, body, 'canteen-stream-1');
      const again = await stream(alice, body, 'canteen-stream-1');
      const text = (frames: Frame[]) => frames.filter((f) => f.type === 'token').map((f) => f.payload.text).join('');
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(first.frames.filter((f) => f.type === 'token').length).toBeGreaterThanOrEqual(2);
      expect(text(first.frames)).toBe('The canteen opens at seven [1].');
      expect(text(again.frames)).toBe(text(first.frames));
      const plan = (frames: Frame[]) => frames.find((f) => f.type === 'plan')!.payload;
      expect(plan(again.frames)).toMatchObject({ replayed: true, query_id: plan(first.frames).query_id, run_id: plan(first.frames).run_id });
      expect(again.frames.find((f) => f.type === 'done')!.payload.query_id).toBe(plan(first.frames).query_id);
      expect(await records(body.query)).toHaveLength(1);
    });
  });

  describe(`a composer model that fails mid-answer (${bus} bus)`, () => {
    it('sends the tokens written so far, then an error naming the cause, and ends the stream; nothing is stored', async () => {
      const out = await readSse(
        `${stack.gatewayUrl}/query/stream`,
        { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
        { method: 'POST', body: JSON.stringify({ query: 'Canteen hours, please?' }), timeoutMs: 90_000 },
      );
      const frames = out.frames.map((f) => JSON.parse(f.data) as Frame);
      const types = frames.map((f) => f.type);
      // The stream ended by itself (no `until`): the last event is the error.
      expect(types[types.length - 1]).toBe('error');
      expect(types).not.toContain('done');
      expect(frames.filter((f) => f.type === 'token').map((f) => f.payload.text)).toEqual(['The canteen', ' opens']);
      const error = frames[frames.length - 1]!.payload;
      expect(error.message).toContain('composer model overloaded (529)');
      expect(error.code).toBe('FAILED_PRECONDITION');
      const [record] = await stack.db.query<any>('SELECT result FROM planner.query_records WHERE query = $1', ['Canteen hours, please?']);
      expect(record.result).toBeNull();
    });
  });

  describe(`the document index routes (${bus} bus)`, () => {
    it("searches the caller's own documents: file, page, section, chunk text, score, confidence and the embedder", async () => {
      const res = await req(alice, 'POST', '/api/v1/documents/search', { query: 'Kestrel-7 crane service interval', top_k: 3 });
      expect(res.status).toBe(200);
      expect(res.body.embedder).toMatch(/^offline-/);
      expect(res.body.mode).toBe('hybrid');
      expect(res.body.hits.length).toBeGreaterThan(0);
      expect(res.body.hits.length).toBeLessThanOrEqual(3);
      expect(res.body.count).toBe(res.body.hits.length);
      expect(res.body.hits[0]).toMatchObject({ rank: 1, document_id: notesId, file: 'ops-notes.md', section: expect.stringContaining('Harbour cranes'), text: expect.stringContaining('every 90 days by Halvard Marine'), page: null });
      expect(res.body.hits[0].score).toBeGreaterThan(0);
      expect(res.body.hits[0].confidence).toBeGreaterThan(0);
      const pdf = await req(alice, 'POST', '/api/v1/documents/search', { query: 'safety incident report deadline', filters: { file_types: ['pdf'], mode: 'bm25' } });
      expect(pdf.status).toBe(200);
      expect(pdf.body.mode).toBe('bm25');
      expect(pdf.body.hits.length).toBeGreaterThan(0);
      expect(pdf.body.hits.every((h: any) => h.document_id === pdfId && typeof h.page === 'number')).toBe(true);
      // Bob's search never reaches Alice's documents.
      const bobs = await req(bob, 'POST', '/api/v1/documents/search', { query: 'Kestrel-7 crane Halvard Marine', top_k: 50 });
      expect(bobs.status).toBe(200);
      expect(bobs.body.hits.length).toBeGreaterThan(0);
      expect(bobs.body.hits.every((h: any) => h.document_id === bobNotesId)).toBe(true);
    });

    it('answers the ingestion status of your document; another user\'s or an unknown one is 404', async () => {
      const res = await req(alice, 'GET', `/api/v1/documents/${notesId}/index`);
      expect(res.status).toBe(200);
      const [row] = await stack.db.query<any>('SELECT version, chunks_total, format FROM entity_resolution.doc_index_documents WHERE document_id = $1', [notesId]);
      expect(res.body).toMatchObject({ document_id: notesId, status: 'indexed', progress: 1, generation: row.version, error: null, title: 'ops-notes.md', format: row.format, embedder: expect.stringMatching(/^offline-/) });
      expect(res.body.chunks).toBe(row.chunks_total);
      expect(res.body.chunks).toBeGreaterThan(0);
      expect(res.body.chunks_done).toBe(res.body.chunks);
      expect((await req(bob, 'GET', `/api/v1/documents/${notesId}/index`)).status).toBe(404);
      const unknown = await req(alice, 'GET', '/api/v1/documents/00000000-0000-4000-8000-000000000000/index');
      expect([unknown.status, unknown.body.error.violations[0].field]).toEqual([404, 'id']);
    });

    it('names the field of bad input', async () => {
      const cases: Array<[unknown, string]> = [
        [{}, 'query'],
        [{ query: '  ' }, 'query'],
        [{ query: 'x', top_k: 0 }, 'top_k'],
        [{ query: 'x', top_k: 51 }, 'top_k'],
        [{ query: 'x', top_k: 2.5 }, 'top_k'],
        [{ query: 'x', filters: { colour: 'red' } }, 'filters.colour'],
        [{ query: 'x', filters: { mode: 'fuzzy' } }, 'filters.mode'],
        [{ query: 'x', filters: { file_types: ['exe'] } }, 'filters.file_types[0]'],
        [{ query: 'x', filters: { document_ids: ['nope'] } }, 'filters.document_ids.0'],
      ];
      for (const [body, field] of cases) {
        const res = await req(alice, 'POST', '/api/v1/documents/search', body);
        expect([res.status, res.body.error.violations[0].field]).toEqual([400, field]);
      }
      const bad = await req(alice, 'GET', '/api/v1/documents/nope/index');
      expect([bad.status, bad.body.error.violations[0].field]).toEqual([400, 'id']);
    });
  });
}

/** Without a model: a clear error, nothing stored. */
export function noModelSuite(): void {
  describe('without a chat model', () => {
    let bare: Stack;
    afterAll(async () => {
      await bare?.stop();
    });

    it('POST /query and /query/stream answer a clear error and make nothing up', async () => {
      bare = await startStack();
      const user = await registerUser(bare.gatewayUrl, 'query-nomodel@example.com');
      for (const path of ['/query', '/query/stream']) {
        const res = await http('POST', `${bare.gatewayUrl}${path}`, { token: user.token, body: { query: 'How often is Kestrel-7 serviced?' } });
        expect(res.status).toBe(409);
        expect(res.body.error.message).toContain('needs a chat model and none is configured (LLM_PROVIDER is none)');
        expect(res.body.error.violations[0]).toMatchObject({ field: 'model', code: 'no_model' });
      }
      expect(await bare.db.query('SELECT 1 FROM planner.query_records')).toHaveLength(0);
    }, 180_000);
  });
}
