/**
 * output-router across processes: a playbook whose steps save rows to a
 * workspace table, route a report to a document (and chat), notify and
 * create a todo runs to completion through the real stack (gateway,
 * planner, orchestrator, output-router as separate processes, PostgreSQL,
 * NATS), and what it wrote is visible through the gateway's workspace
 * routes — to its owner only. Replays write once; bad inputs are refused
 * naming the field.
 *
 * Needs `pnpm build`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { action } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { http, registerUser, startStack, type GatewayUser, type Stack } from '@af/testing';

const ROWS = [
  { id: 1, name: 'River trust', amount: 1200.5 },
  { id: 2, name: 'Hill fund', amount: 300 },
  { id: 3, name: 'Lake, "north"', amount: 75 },
];

let stack: Stack;
let alice: GatewayUser;
let bob: GatewayUser;
let actions: action.ActionServiceClient;

const req = (user: GatewayUser, method: string, path: string, body?: unknown) =>
  http(method, `${stack.gatewayUrl}${path}`, { token: user.token, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  stack = await startStack({
    outputRouter: true,
    env: { 'output-router': { OUTPUT_MAX_FILE_BYTES: '16384' } },
  });
  alice = await registerUser(stack.gatewayUrl, 'alice@example.com');
  bob = await registerUser(stack.gatewayUrl, 'bob@example.com');
  const auth = new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' });
  actions = createGrpcClient<action.ActionServiceClient>(
    'action',
    action.ACTION_SERVICE_NAME,
    `127.0.0.1:${stack.services['output-router']!.env.GRPC_PORT}`,
    { auth },
  );
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function runToEnd(user: GatewayUser, yaml: string, inputs: Record<string, unknown>): Promise<any> {
  const started = await req(user, 'POST', '/api/v1/runs', { playbook: yaml, inputs });
  if (started.status !== 201)
    throw new Error(`start failed: ${started.status} ${JSON.stringify(started.body)}`);
  const id = started.body.run.id as string;
  for (;;) {
    const res = await req(user, 'GET', `/api/v1/runs/${id}`);
    if (['completed', 'failed', 'cancelled'].includes(res.body.run.status)) return res.body.run;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const execute = (over: Partial<action.ExecuteRequest>) =>
  call(
    actions.execute({
      action: 'route_output',
      inputs: {},
      params: {},
      idempotencyKey: '',
      principal: { userId: alice.id, teamIds: [] },
      timeoutMs: 10_000,
      runId: '',
      nodeId: '',
      attempt: 1,
      ...over,
    }),
  );

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

describe('a playbook writing to the workspace', () => {
  let run: any;

  beforeAll(async () => {
    run = await runToEnd(
      alice,
      readFileSync(join(__dirname, '..', 'fixtures', 'save-notify-remember.playbook.yaml'), 'utf8'),
      { rows: ROWS },
    );
  }, 60_000);

  it('completes with the actions outputs', () => {
    expect(run.status).toBe('completed');
    expect(run.outputs.saved).toEqual({
      rows_inserted: 3,
      rows_updated: 0,
      rows_skipped: 0,
      table_name: 'grants',
      workspace_id: 'default',
    });
    expect(run.outputs.notified).toEqual({ notification_id: expect.any(String), success: true });
    expect(run.outputs.todo).toMatchObject({ success: true, todo_id: expect.any(String) });
    // Each destination independently: the document and chat delivered, the knowledge graph unavailable in this deployment.
    expect(run.outputs.routed.routed_to).toEqual(['document', 'chat']);
    expect(run.outputs.routed.success).toBe(false);
    expect(run.outputs.routed.routing_report.map((r: any) => [r.destination, r.status])).toEqual([
      ['document', 'success'],
      ['chat', 'success'],
      ['knowledge_graph', 'error'],
    ]);
    expect(run.outputs.routed.routing_report[2].error.message).toContain('action_unavailable');
    expect(run.outputs.routed.chat).toContain('| id | name | amount |');
  });

  it('shows the document, in its folder, to its owner', async () => {
    const folders = await req(alice, 'GET', '/api/agent-factory/workspace/folders');
    expect(folders.body.folders.map((f: any) => f.path)).toEqual(['/Reports', '/Reports/Grants']);
    const docs = await req(alice, 'GET', '/api/agent-factory/workspace/documents');
    expect(docs.status).toBe(200);
    expect(docs.body.documents).toHaveLength(1);
    const doc = docs.body.documents[0];
    expect(doc).toMatchObject({
      folder_path: '/Reports/Grants',
      content_type: 'text/markdown',
      version: 1,
      source: { run_id: run.id, node_id: 'report', action: 'route_output' },
    });
    expect(doc.title).toMatch(/^grants_\d{4}-\d{2}-\d{2}\.md$/);
    const read = await req(alice, 'GET', `/api/agent-factory/workspace/documents/${doc.id}`);
    expect(read.body.content).toContain('| 3 | Lake, "north" | 75 |');
    const download = await fetch(
      `${stack.gatewayUrl}/api/agent-factory/workspace/documents/${doc.id}/download`,
      { headers: { authorization: `Bearer ${alice.token}` } },
    );
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toContain('text/markdown');
    expect(download.headers.get('content-disposition')).toContain(doc.title);
    expect(await download.text()).toBe(read.body.content);
  });

  it('shows the notification, the todo and the table rows', async () => {
    const inbox = await req(alice, 'GET', '/api/agent-factory/workspace/notifications');
    expect(inbox.body.unread_count).toBe(1);
    expect(inbox.body.notifications).toEqual([
      expect.objectContaining({
        title: 'Grants saved',
        message: 'Saved 3 rows to grants',
        priority: 'high',
        read: false,
      }),
    ]);
    const marked = await req(alice, 'POST', '/api/agent-factory/workspace/notifications/read', { all: true });
    expect(marked.body.marked).toBe(1);
    expect(
      (await req(alice, 'GET', '/api/agent-factory/workspace/notifications?unread_only=true')).body
        .notifications,
    ).toEqual([]);

    const todos = await req(alice, 'GET', '/api/agent-factory/workspace/todos');
    expect(todos.body.todos).toEqual([
      expect.objectContaining({ title: 'Review grants', state: 'TODO', priority: 'A', tags: ['grants'] }),
    ]);

    const tables = await req(alice, 'GET', '/api/agent-factory/workspace/tables');
    expect(tables.body.tables).toEqual([
      expect.objectContaining({
        workspace_id: 'default',
        table_name: 'grants',
        row_count: 3,
        columns: [
          { name: 'id', type: 'integer' },
          { name: 'name', type: 'text' },
          { name: 'amount', type: 'number' },
        ],
      }),
    ]);
    const rows = await req(
      alice,
      'GET',
      '/api/agent-factory/workspace/tables/default/grants/rows?page_size=2',
    );
    expect(rows.body.rows.map((r: any) => [r.id, r.name, r.amount, r._source])).toEqual([
      [1, 'River trust', 1200.5, `run:${run.id}`],
      [2, 'Hill fund', 300, `run:${run.id}`],
    ]);
    const next = await req(
      alice,
      'GET',
      `/api/agent-factory/workspace/tables/default/grants/rows?page_token=${rows.body.next_page_token}`,
    );
    expect(next.body.rows.map((r: any) => r.id)).toEqual([3]);
  });

  it('is 404 for another user, whose workspace is empty', async () => {
    const doc = (await req(alice, 'GET', '/api/agent-factory/workspace/documents')).body.documents[0];
    for (const [method, path, body] of [
      ['GET', `/api/agent-factory/workspace/documents/${doc.id}`],
      ['GET', `/api/agent-factory/workspace/documents/${doc.id}/download`],
      ['POST', `/api/agent-factory/workspace/documents/${doc.id}/move`, { folder_id: null }],
      [
        'POST',
        `/api/agent-factory/workspace/documents/${doc.id}/versions`,
        { content_type: 'text/plain', content: 'mine now' },
      ],
      ['DELETE', `/api/agent-factory/workspace/documents/${doc.id}`],
      ['DELETE', `/api/agent-factory/workspace/folders/${doc.folder_id}`],
      ['GET', '/api/agent-factory/workspace/tables/default/grants/rows'],
    ] as Array<[string, string, unknown?]>) {
      const res = await req(bob, method, path, body);
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    expect((await req(bob, 'GET', '/api/agent-factory/workspace/documents')).body.documents).toEqual([]);
    expect((await req(bob, 'GET', '/api/agent-factory/workspace/notifications')).body.notifications).toEqual(
      [],
    );
    expect((await req(bob, 'GET', '/api/agent-factory/workspace/todos')).body.todos).toEqual([]);
    expect((await req(bob, 'GET', '/api/agent-factory/workspace/tables')).body.tables).toEqual([]);
    // Still there for alice.
    expect((await req(alice, 'GET', `/api/agent-factory/workspace/documents/${doc.id}`)).status).toBe(200);
  });

  it('writes once when a node is replayed (another attempt of the same node)', async () => {
    const destinations = [
      { type: 'document', config: { filename_template: 'grants_{date}', folder: 'Reports/Grants' } },
    ];
    const again = await execute({
      runId: run.id,
      nodeId: 'report',
      attempt: 2,
      idempotencyKey: `${run.id}:report:2`,
      inputs: { data: ROWS },
      params: { destinations },
    });
    expect(again.outputs!.routing_report).toEqual([
      expect.objectContaining({ destination: 'document', status: 'success', replayed: true }),
    ]);
    const notified = await execute({
      action: 'send_notification',
      runId: run.id,
      nodeId: 'notify',
      attempt: 2,
      idempotencyKey: `${run.id}:notify:2`,
      inputs: { message: 'again' },
    });
    expect(notified.outputs!.notification_id).toBe(run.outputs.notified.notification_id);
    expect((await req(alice, 'GET', '/api/agent-factory/workspace/documents')).body.documents).toHaveLength(
      1,
    );
    expect(
      (await req(alice, 'GET', '/api/agent-factory/workspace/notifications')).body.notifications,
    ).toHaveLength(1);
  });

  describe('table filters, exports and the list of exports', () => {
    const T = '/api/agent-factory/workspace/tables/default/grants';
    const fieldsOf = (res: { body: any }) => (res.body.error?.violations ?? []).map((v: any) => v.field);
    const download = async (user: GatewayUser, url: string) => {
      const res = await fetch(`${stack.gatewayUrl}${url}`, { headers: { authorization: `Bearer ${user.token}` } });
      return { status: res.status, type: res.headers.get('content-type') ?? '', bytes: Buffer.from(await res.arrayBuffer()) };
    };

    it('filters rows by equality on columns, as the column type, values never SQL', async () => {
      const ids = async (qs: string) => {
        const res = await req(alice, 'GET', `${T}/rows?${qs}`);
        expect([qs, res.status]).toEqual([qs, 200]);
        return res.body.rows.map((r: any) => r.id);
      };
      expect(await ids('filter.name=Hill%20fund')).toEqual([2]);
      expect(await ids('filter.amount=75')).toEqual([3]);
      expect(await ids('filter.amount=1200.50')).toEqual([1]);
      expect(await ids('filter.id=1&filter.name=Hill%20fund')).toEqual([]);
      expect(await ids(`filter._source=${encodeURIComponent(`run:${run.id}`)}&page_size=2`)).toEqual([1, 2]);
      expect(await ids(`filter.name=${encodeURIComponent("x' OR '1'='1")}`)).toEqual([]);
      expect(await ids(`filter.name=${encodeURIComponent('Lake, "north"')}`)).toEqual([3]);
      // Paging keeps the filter.
      const first = await req(alice, 'GET', `${T}/rows?filter._source=${encodeURIComponent(`run:${run.id}`)}&page_size=2`);
      const next = await req(alice, 'GET', `${T}/rows?filter._source=${encodeURIComponent(`run:${run.id}`)}&page_size=2&page_token=${first.body.next_page_token}`);
      expect(next.body.rows.map((r: any) => r.id)).toEqual([3]);
      expect(next.body.next_page_token).toBeNull();
    });

    it('refuses an unknown column, a value not of the column type and a repeated filter, naming the filter', async () => {
      for (const [qs, field] of [
        ['filter.nope=1', 'filter.nope'],
        [`filter.${encodeURIComponent('name" = name OR "x')}=1`, 'filter.name" = name OR "x'],
        ['filter.id=abc', 'filter.id'],
        ['filter.amount=lots', 'filter.amount'],
        ['filter.=1', 'filter.'],
        ['filter.id=1&filter.id=2', 'filter.id'],
        ['page_size=0', 'page_size'],
      ]) {
        const res = await req(alice, 'GET', `${T}/rows?${qs}`);
        expect([qs, res.status, fieldsOf(res)]).toEqual([qs, 400, [field]]);
      }
    });

    it('exports the filtered rows to csv, json, markdown and xlsx, downloadable until the link expires', async () => {
      const csv = await req(alice, 'POST', `${T}/export`, { format: 'csv', filters: { amount: 300 } });
      expect(csv.status).toBe(201);
      expect(csv.body).toEqual({
        export_id: expect.any(String),
        filename: expect.stringMatching(/^grants_\d{4}-\d{2}-\d{2}\.csv$/),
        download_url: `/api/agent-factory/workspace/exports/${csv.body.export_id}/download`,
        expires_at: expect.any(String),
        format: 'csv',
        size_bytes: expect.any(Number),
        row_count: 1,
      });
      expect(new Date(csv.body.expires_at).getTime()).toBeGreaterThan(Date.now());
      const file = await download(alice, csv.body.download_url);
      expect(file.status).toBe(200);
      expect(file.type).toContain('text/csv');
      const lines = file.bytes.toString('utf8').trim().split(/\r?\n/);
      expect(lines[0]).toBe('id,name,amount,_source,_timestamp');
      expect(lines.slice(1).map((l) => l.split(',').slice(0, 4).join(','))).toEqual([`2,Hill fund,300,run:${run.id}`]);
      expect(file.bytes.byteLength).toBe(csv.body.size_bytes);

      const json = await req(alice, 'POST', `${T}/export`, { format: 'json' });
      const rows = JSON.parse((await download(alice, json.body.download_url)).bytes.toString('utf8'));
      expect(rows.map((r: any) => [r.id, r.name, r.amount])).toEqual(ROWS.map((r) => [r.id, r.name, r.amount]));

      const md = await req(alice, 'POST', `${T}/export`, { format: 'markdown', filters: { name: 'River trust' } });
      const text = (await download(alice, md.body.download_url)).bytes.toString('utf8');
      expect(text).toContain('River trust');
      expect(text).not.toContain('Hill fund');

      const xlsx = await req(alice, 'POST', `${T}/export`, { format: 'xlsx' });
      expect(xlsx.body.filename).toMatch(/\.xlsx$/);
      const book = await download(alice, xlsx.body.download_url);
      expect(book.type).toContain('spreadsheetml');
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load(book.bytes as unknown as ArrayBuffer);
      const sheet = wb.worksheets[0]!;
      expect(sheet.name).toBe('grants');
      expect([2, 3, 4].map((n) => (sheet.getRow(n).values as unknown[]).slice(1, 4))).toEqual(
        ROWS.map((r) => [r.id, r.name, r.amount]),
      );
    });

    it('refuses a bad format, an unknown filter column and a bad body, naming the field', async () => {
      for (const [body, field] of [
        [{ format: 'pdf' }, 'format'],
        [{}, 'format'],
        [{ format: 'csv', filters: { nope: 'x' } }, 'filter.nope'],
        [{ format: 'csv', filters: { id: 'one' } }, 'filter.id'],
        [{ format: 'csv', extra: 1 }, 'extra'],
      ] as Array<[unknown, string]>) {
        const res = await req(alice, 'POST', `${T}/export`, body);
        expect([body, res.status, fieldsOf(res).some((f: string) => f.includes(field))]).toEqual([body, 400, true]);
      }
      expect((await req(alice, 'POST', '/api/agent-factory/workspace/tables/default/nope/export', { format: 'csv' })).status).toBe(404);
    });

    it('lists the caller\'s exports newest first, paged; another user sees none and gets 404', async () => {
      const all = await req(alice, 'GET', '/api/agent-factory/workspace/exports');
      expect(all.status).toBe(200);
      expect(all.body.exports.map((e: any) => e.format)).toEqual(['xlsx', 'markdown', 'json', 'csv']);
      expect(all.body.exports[0]).toEqual({
        export_id: expect.any(String),
        filename: expect.stringMatching(/^grants_.*\.xlsx$/),
        format: 'xlsx',
        size_bytes: expect.any(Number),
        created_at: expect.any(String),
        expires_at: expect.any(String),
        expired: false,
        download_url: `/api/agent-factory/workspace/exports/${all.body.exports[0].export_id}/download`,
      });
      const seen: string[] = [];
      let token = '';
      for (let page = 0; page < 10; page++) {
        const res = await req(alice, 'GET', `/api/agent-factory/workspace/exports?page_size=3${token ? `&page_token=${token}` : ''}`);
        seen.push(...res.body.exports.map((e: any) => e.export_id));
        if (!res.body.next_page_token) break;
        token = res.body.next_page_token;
      }
      expect(seen).toEqual(all.body.exports.map((e: any) => e.export_id));
      expect((await req(alice, 'GET', '/api/agent-factory/workspace/exports?page_token=bogus')).status).toBe(400);
      expect((await req(alice, 'GET', '/api/agent-factory/workspace/exports?page_size=0')).status).toBe(400);

      expect((await req(bob, 'GET', '/api/agent-factory/workspace/exports')).body.exports).toEqual([]);
      for (const [method, path, body] of [
        ['GET', `${T}/rows?filter.id=1`],
        ['POST', `${T}/export`, { format: 'csv' }],
        ['GET', all.body.exports[0].download_url],
      ] as Array<[string, string, unknown?]>) {
        const res = await req(bob, method, path, body);
        expect([method, path, res.status]).toEqual([method, path, 404]);
      }
    });
  });
});

describe('approval requests of unattended runs', () => {
  it('become a notification of their owner, with a link to the request', async () => {
    const yaml = [
      'id: needs-approval',
      'name: Wait for a person',
      'version: "1.0"',
      'execution_mode: deterministic',
      'steps:',
      '  - name: confirm',
      '    step_type: approval',
      '    prompt: "Go ahead?"',
    ].join('\n');
    const started = await req(bob, 'POST', '/api/v1/runs', {
      playbook: yaml,
      inputs: {},
      run_context: 'background',
    });
    expect(started.status).toBe(201);
    const runId = started.body.run.id as string;
    let found: any;
    for (let i = 0; i < 100 && !found; i++) {
      const inbox = await req(bob, 'GET', '/api/agent-factory/workspace/notifications');
      found = inbox.body.notifications.find((n: any) => n.source.run_id === runId);
      if (!found) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found).toMatchObject({
      title: 'An approval is waiting for you',
      priority: 'high',
      action_label: 'Review',
      source: { run_id: runId, node_id: 'confirm', action: 'approval_requested' },
    });
    const approvals = await req(bob, 'GET', `/api/agent-factory/approvals?run_id=${runId}`);
    expect(found.action_url).toBe(`/api/agent-factory/approvals/${approvals.body.approvals[0].id}`);
    // Only the owner is told.
    expect(
      (await req(alice, 'GET', '/api/agent-factory/workspace/notifications')).body.notifications.some(
        (n: any) => n.source.run_id === runId,
      ),
    ).toBe(false);
  });
});

describe('refusals', () => {
  it('names a bad table identifier, an unknown destination type and a missing schema_mapping', async () => {
    const badTable = await refusal(
      execute({
        action: 'save_to_workspace',
        inputs: { data: [{ a: 1 }] },
        params: { table_name: 'x"; drop table users; --' },
      }),
    );
    expect(badTable.code).toBe('INVALID_ARGUMENT');
    expect(badTable.violations[0]!.field).toBe('params.table_name');

    const badColumn = await refusal(
      execute({
        action: 'save_to_workspace',
        inputs: { data: [{ 'Robert"); DROP': 1 }] },
        params: { table_name: 'ok' },
      }),
    );
    expect(badColumn.violations[0]!.field).toBe('inputs.data[0].Robert"); DROP');

    const unknown = await refusal(
      execute({ inputs: { data: [] }, params: { destinations: [{ type: 'fax' }] } }),
    );
    expect(unknown.violations).toEqual([expect.objectContaining({ field: 'params.destinations[0].type' })]);

    const noMapping = await refusal(
      execute({
        inputs: { data: [] },
        params: { destinations: [{ type: 'data_workspace_table', config: { table_name: 't' } }] },
      }),
    );
    expect(noMapping.violations).toEqual([
      expect.objectContaining({ field: 'params.destinations[0].config.schema_mapping' }),
    ]);
  });

  it('refuses a type change of an existing table column', async () => {
    await execute({
      action: 'save_to_workspace',
      inputs: { data: [{ code: 1 }] },
      params: { table_name: 'codes' },
    });
    const changed = await refusal(
      execute({
        action: 'save_to_workspace',
        inputs: { data: [{ code: 'A1' }] },
        params: { table_name: 'codes' },
      }),
    );
    expect(changed.code).toBe('FAILED_PRECONDITION');
    expect(changed.message).toContain(
      'column code is integer in the existing table; changing it to text is refused',
    );
  });

  it('refuses a file over the size limit and a content type it does not accept', async () => {
    const big = await req(alice, 'POST', '/api/agent-factory/workspace/documents', {
      title: 'big.txt',
      content_type: 'text/plain',
      content: 'x'.repeat(20_000),
    });
    expect(big.status).toBe(413);
    expect(big.body.error.violations[0].field).toBe('content');
    const exe = await req(alice, 'POST', '/api/agent-factory/workspace/documents', {
      title: 'run.exe',
      content_type: 'application/x-msdownload',
      content_base64: 'TVo=',
    });
    expect(exe.status).toBe(400);
    expect(exe.body.error.violations[0].field).toBe('content_type');
    const ok = await req(alice, 'POST', '/api/agent-factory/workspace/documents', {
      title: 'notes.md',
      content_type: 'text/markdown',
      content: '# notes',
    });
    expect(ok.status).toBe(201);
    const v2 = await req(
      alice,
      'POST',
      `/api/agent-factory/workspace/documents/${ok.body.document.id}/versions`,
      { content_type: 'text/markdown', content: '# notes v2' },
    );
    expect(v2.body.document.version).toBe(2);
    expect(
      (await req(alice, 'GET', `/api/agent-factory/workspace/documents/${ok.body.document.id}?version=1`))
        .body.content,
    ).toBe('# notes');
    expect(
      (await req(alice, 'DELETE', `/api/agent-factory/workspace/documents/${ok.body.document.id}`)).status,
    ).toBe(204);
    expect(
      (await req(alice, 'GET', `/api/agent-factory/workspace/documents/${ok.body.document.id}`)).status,
    ).toBe(404);
  });
});

describe('todos through the workspace routes', () => {
  const T = '/api/agent-factory/workspace/todos';

  it('creates, reads, updates and completes a todo; the actions see the same todo', async () => {
    const created = await req(alice, 'POST', T, {
      title: 'File the report',
      body: 'Before the board meeting',
      priority: 'B',
      deadline: '2026-12-15',
      tags: ['board'],
    });
    expect(created.status).toBe(201);
    const id = created.body.todo.id;
    expect(created.body.todo).toEqual(
      expect.objectContaining({
        title: 'File the report',
        body: 'Before the board meeting',
        state: 'TODO',
        priority: 'B',
        deadline: '2026-12-15',
        scheduled: null,
        tags: ['board'],
        notes: [],
        completed_at: null,
      }),
    );
    const got = await req(alice, 'GET', `${T}/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.todo).toEqual(created.body.todo);
    expect((await req(alice, 'GET', T)).body.todos.map((t: any) => t.id)).toContain(id);

    const updated = await req(alice, 'PATCH', `${T}/${id}`, {
      state: 'NEXT',
      priority: 'A',
      deadline: '2026-12-20',
      add_tags: ['urgent'],
      remove_tags: ['board'],
      add_note: 'moved up',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.updated_fields).toEqual(['state', 'priority', 'deadline', 'tags', 'notes']);
    expect(updated.body.todo).toEqual(
      expect.objectContaining({ state: 'NEXT', priority: 'A', deadline: '2026-12-20', tags: ['urgent'], notes: ['moved up'] }),
    );
    expect((await req(alice, 'GET', `${T}/${id}`)).body.todo).toEqual(updated.body.todo);

    // The update_todo action (same use case) changes the todo the routes made.
    const viaAction = await execute({
      action: 'update_todo',
      idempotencyKey: `http-todo:${id}:1`,
      inputs: { todo_id: id },
      params: { scheduled: '2026-12-18' },
    });
    expect(viaAction.outputs).toEqual({ success: true, updated_fields: ['scheduled'] });
    expect((await req(alice, 'GET', `${T}/${id}`)).body.todo.scheduled).toBe('2026-12-18');

    const done = await req(alice, 'PATCH', `${T}/${id}`, { state: 'DONE' });
    expect(done.status).toBe(200);
    expect(done.body.todo.state).toBe('DONE');
    expect(Date.parse(done.body.todo.completed_at)).not.toBeNaN();
    expect((await req(alice, 'GET', `${T}?state=DONE`)).body.todos.map((t: any) => t.id)).toEqual([id]);
    // complete_todo on a done todo keeps its completion time.
    const completed = await execute({ action: 'complete_todo', idempotencyKey: `http-todo:${id}:2`, inputs: { todo_id: id } });
    expect(completed.outputs!.completed_at).toBe(done.body.todo.completed_at);
    // Another state reopens it.
    const reopened = await req(alice, 'PATCH', `${T}/${id}`, { state: 'TODO' });
    expect(reopened.body.todo).toEqual(expect.objectContaining({ state: 'TODO', completed_at: null }));
  });

  it('is 404 for another user on read and update, and leaves the todo as it was', async () => {
    const mine = (await req(alice, 'POST', T, { title: 'Private' })).body.todo;
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { state: 'DONE' }],
      ['PATCH', { add_note: 'not yours' }],
    ] as Array<[string, unknown]>) {
      const res = await req(bob, method, `${T}/${mine.id}`, body);
      expect([method, res.status]).toEqual([method, 404]);
    }
    expect((await req(bob, 'GET', T)).body.todos).toEqual([]);
    expect((await req(alice, 'GET', `${T}/${mine.id}`)).body.todo).toEqual(mine);
    // An unknown id is 404 for its owner too.
    expect((await req(alice, 'GET', `${T}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  it('refuses bad inputs with 400 naming the field', async () => {
    const id = (await req(alice, 'POST', T, { title: 'Checked' })).body.todo.id;
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', T, {}, 'title'],
      ['POST', T, { title: '' }, 'title'],
      ['POST', T, { title: 'x', deadline: 'next week' }, 'deadline'],
      ['POST', T, { title: 'x', deadline: '2026-02-30' }, 'deadline'],
      ['POST', T, { title: 'x', state: 'DONE' }, 'state'],
      ['POST', T, { title: 'x', priority: 'Z' }, 'priority'],
      ['POST', T, { title: 'x', colour: 'red' }, 'colour'],
      ['PATCH', `${T}/${id}`, { state: 'FINISHED' }, 'state'],
      ['PATCH', `${T}/${id}`, { deadline: '2026-13-01' }, 'deadline'],
      ['PATCH', `${T}/${id}`, { title: 'renamed' }, 'title'],
      ['PATCH', `${T}/not-a-todo-id`, { state: 'DONE' }, 'todo_id'],
      ['GET', `${T}/not-a-todo-id`, undefined, 'todo_id'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await req(alice, method, path, body);
      expect([method, path, body, res.status, res.body.error?.violations?.map((v: any) => v.field)]).toEqual([
        method,
        path,
        body,
        400,
        expect.arrayContaining([field]),
      ]);
    }
    // Nothing of the refused changes landed.
    expect((await req(alice, 'GET', `${T}/${id}`)).body.todo).toEqual(
      expect.objectContaining({ title: 'Checked', state: 'TODO', deadline: null }),
    );
  });
});
