/**
 * route_output's destinations and the inbox actions, called as the
 * orchestrator calls them (ActionService over gRPC, keys runId:nodeId:attempt)
 * on a real output-router process, checked through the gateway's routes.
 * Real: the stack's processes, PostgreSQL, NATS, and an HTTP server standing
 * in for a webhook receiver (it fails the first delivery with 500).
 *
 * Needs `pnpm build`.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { action } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import {
  http,
  readSse,
  registerUser,
  startFixtureServer,
  startStack,
  type FixtureServer,
  type GatewayUser,
  type Stack,
} from '@af/testing';

const SECRET = 'webhook-secret-0123456789';
let stack: Stack;
let receiver: FixtureServer;
let alice: GatewayUser;
let bob: GatewayUser;
let actions: action.ActionServiceClient;
let hookCalls = 0;

const req = (user: GatewayUser, method: string, path: string, body?: unknown) =>
  http(method, `${stack.gatewayUrl}${path}`, { token: user.token, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  receiver = await startFixtureServer();
  receiver.route('POST', '/hook', () =>
    ++hookCalls === 1 ? { status: 500, json: { error: 'busy' } } : { json: { ok: true } },
  );
  receiver.route('POST', '/gone', { status: 410, json: {} });
  // The first delivery hangs (the service is killed meanwhile); later ones answer at once.
  receiver.route('POST', '/slow', () =>
    receiver.requestsTo('POST', '/slow').length === 1
      ? { json: {}, delayMs: 60_000 }
      : { json: { ok: true } },
  );
  stack = await startStack({ outputRouter: true });
  alice = await registerUser(stack.gatewayUrl, 'alice@example.com');
  bob = await registerUser(stack.gatewayUrl, 'bob@example.com');
  actions = createGrpcClient<action.ActionServiceClient>(
    'action',
    action.ACTION_SERVICE_NAME,
    `127.0.0.1:${stack.services['output-router']!.env.GRPC_PORT}`,
    {
      auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }),
    },
  );
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

/** One node's call: a fresh run unless given; `attempt` picks the idempotency key. */
function node(name: string, user: GatewayUser = alice, runId = randomUUID(), teamIds: string[] = []) {
  return (
    actionName: string,
    inputs: Record<string, unknown>,
    params: Record<string, unknown> = {},
    attempt = 1,
  ) =>
    call(
      actions.execute({
        action: actionName,
        inputs,
        params,
        idempotencyKey: `${runId}:${name}:${attempt}`,
        principal: { userId: user.id, teamIds },
        timeoutMs: 20_000,
        runId,
        nodeId: name,
        attempt,
      }),
    ).then((r) => r.outputs as Record<string, any>);
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

it('lists the workspace actions', async () => {
  const listed = await call(actions.listActions({}));
  expect(listed.service).toBe('output-router');
  expect(listed.actions.map((a) => a.name)).toEqual(
    expect.arrayContaining([
      'route_output',
      'save_to_workspace',
      'send_notification',
      'create_todo',
      'list_todos',
      'update_todo',
      'complete_todo',
      'search_todos',
      'write_team_post',
      'search_team_posts',
      'broadcast_to_team',
      'read_file',
      'find_file_by_name',
      'patch_file',
      'copy_file',
      'move_file',
      'delete_file',
      'read_team_file',
      'search_team_files',
    ]),
  );
});

describe('route_output', () => {
  const rows = [
    { ein: '11', name: 'River trust', amount: 10 },
    { ein: '22', name: 'Hill fund', amount: 20 },
    { ein: '11', name: 'River trust (dup)', amount: 99 },
  ];

  it('delivers every destination independently, each once, and reports each', async () => {
    const route = node('route');
    const destinations = [
      { type: 'webhook', config: { url: `${receiver.url}/hook`, secret: SECRET } },
      {
        type: 'data_workspace_table',
        config: {
          table_name: 'donors',
          schema_mapping: { ein: 'text', name: 'text', amount: 'number' },
          deduplication_key: ['ein'],
          source: 'irs',
          query: 'river',
        },
      },
      { type: 'file_export', format: 'csv', config: { filename_template: 'donors_{date}' } },
      { type: 'notification', config: { title: 'Donors routed' }, format: 'json' },
      { type: 'webhook', config: { url: `${receiver.url}/gone` } },
      { type: 'document', condition: { '==': [{ var: 'data.0.ein' }, 'nope'] } },
    ];
    const out = await route('route_output', { data: rows }, { destinations });
    expect(out.routing_report.map((r: any) => [r.destination, r.status])).toEqual([
      ['webhook', 'success'],
      ['data_workspace_table', 'success'],
      ['file_export', 'success'],
      ['notification', 'success'],
      ['webhook', 'error'],
      ['document', 'skipped'],
    ]);
    expect(out.success).toBe(false);
    expect(out.routed_to).toEqual(['webhook', 'data_workspace_table', 'file_export', 'notification']);

    // The webhook: failed once with 500, delivered on the retry, signed.
    expect(out.routing_report[0].details).toMatchObject({ http_status: 200, attempts: 2 });
    const hooks = receiver.requestsTo('POST', '/hook');
    expect(hooks).toHaveLength(2);
    const body = hooks[1]!.body;
    expect(hooks[1]!.headers['x-af-signature']).toBe(
      `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    );
    expect(JSON.parse(body)).toMatchObject({ node_id: 'route', data: rows });
    expect(out.routing_report[4].error.message).toContain('HTTP 410');

    // The table: duplicates by ein skipped; metadata columns filled.
    expect(out.routing_report[1].details).toEqual({
      table: 'donors',
      workspace_id: 'default',
      rows_inserted: 2,
      rows_updated: 0,
      rows_skipped: 1,
    });
    const table = await req(alice, 'GET', '/api/agent-factory/workspace/tables/default/donors/rows');
    expect(table.body.rows.map((r: any) => [r.ein, r.name, r._source, r._query])).toEqual([
      ['11', 'River trust', 'irs', 'river'],
      ['22', 'Hill fund', 'irs', 'river'],
    ]);

    // The export: a download link for its owner only.
    const link = out.routing_report[2].details.download_url as string;
    const csv = await fetch(`${stack.gatewayUrl}${link}`, {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toBe(
      'ein,name,amount\r\n11,River trust,10\r\n22,Hill fund,20\r\n11,River trust (dup),99\r\n',
    );
    expect(
      (await fetch(`${stack.gatewayUrl}${link}`, { headers: { authorization: `Bearer ${bob.token}` } }))
        .status,
    ).toBe(404);

    // Replayed (another attempt of the same node): nothing is delivered twice.
    const again = await route('route_output', { data: rows }, { destinations }, 2);
    expect(again.routing_report.slice(0, 4).map((r: any) => r.replayed)).toEqual([true, true, true, true]);
    expect(receiver.requestsTo('POST', '/hook')).toHaveLength(2);
    expect(
      (await req(alice, 'GET', '/api/agent-factory/workspace/tables')).body.tables.find(
        (t: any) => t.table_name === 'donors',
      ).row_count,
    ).toBe(2);
    expect(
      (await req(alice, 'GET', '/api/agent-factory/workspace/notifications')).body.notifications.filter(
        (n: any) => n.title === 'Donors routed',
      ),
    ).toHaveLength(1);
  });

  it('upserts by key and refuses an egress target the guard does not allow', async () => {
    const mapping = { ein: 'text', amount: 'number' };
    const dest = (r: unknown[]) =>
      node('upsert')(
        'route_output',
        { data: r },
        {
          destinations: [
            {
              type: 'data_workspace_table',
              config: { table_name: 'totals', schema_mapping: mapping, upsert_key: 'ein' },
            },
          ],
        },
      );
    await dest([{ ein: 'a', amount: 1 }]);
    const second = await dest([
      { ein: 'a', amount: 5 },
      { ein: 'b', amount: 2 },
    ]);
    expect(second.routing_report[0].details).toMatchObject({ rows_inserted: 1, rows_updated: 1 });
    const rows = await req(alice, 'GET', '/api/agent-factory/workspace/tables/default/totals/rows');
    expect(rows.body.rows.map((r: any) => [r.ein, r.amount])).toEqual([
      ['a', 5],
      ['b', 2],
    ]);
    const guarded = await node('hook')(
      'route_output',
      { data: {} },
      { destinations: [{ type: 'webhook', config: { url: 'http://169.254.169.254/latest/meta-data' } }] },
    );
    expect(guarded.routing_report[0]).toMatchObject({
      status: 'error',
      error: { code: 'FAILED_PRECONDITION' },
    });
    expect(guarded.routing_report[0].error.message).toContain('egress to 169.254.169.254 refused');
  });

  it('appends to a document as a new version and names template errors', async () => {
    const doc = (
      await node('doc')(
        'route_output',
        { data: 'first line' },
        { destinations: [{ type: 'document', config: { filename_template: 'log' } }] },
      )
    ).routing_report[0].details;
    const appended = await node('append')(
      'route_output',
      { data: 'second line' },
      { destinations: [{ type: 'append_to_existing', config: { document_id: doc.document_id } }] },
    );
    expect(appended.routing_report[0].details).toEqual({ document_id: doc.document_id, version: 2 });
    expect(
      (await req(alice, 'GET', `/api/agent-factory/workspace/documents/${doc.document_id}`)).body.content,
    ).toBe('# log\n\nfirst line\nsecond line\n');
    const bad = await node('tpl')(
      'route_output',
      { data: {} },
      { destinations: [{ type: 'document', config: { filename_template: 'r_{nope}' } }] },
    );
    expect(bad.routing_report[0].error).toEqual({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining(
        'params.destinations[0].config.filename_template: unknown template variable {nope}',
      ),
    });
    // Another user's document is not found for append either.
    const foreign = await node('append', bob)(
      'route_output',
      { data: 'x' },
      { destinations: [{ type: 'append_to_existing', config: { document_id: doc.document_id } }] },
    );
    expect(foreign.routing_report[0].error.code).toBe('NOT_FOUND');
  });
});

describe('the notification stream', () => {
  it('sends new notifications as events, resuming after Last-Event-ID, to their owner only', async () => {
    await node('before')('send_notification', { message: 'already there' });
    const [newest] = (await req(alice, 'GET', '/api/agent-factory/workspace/notifications')).body
      .notifications;
    const lastEventId = Buffer.from(`${newest.created_at}|${newest.id}`).toString('base64url');
    const sent = await node('stream')('send_notification', { message: 'new one' }, { title: 'Streamed' });
    const stream = await readSse(
      `${stack.gatewayUrl}/api/agent-factory/workspace/notifications/stream`,
      { authorization: `Bearer ${alice.token}`, 'last-event-id': lastEventId },
      { until: (f) => f.event === 'notification', timeoutMs: 10_000 },
    );
    expect(stream.status).toBe(200);
    const frames = stream.frames.filter((f) => f.event === 'notification');
    expect(frames.map((f) => JSON.parse(f.data))).toEqual([
      expect.objectContaining({ id: sent.notification_id, title: 'Streamed', message: 'new one' }),
    ]);
    const bad = await http('GET', `${stack.gatewayUrl}/api/agent-factory/workspace/notifications/stream`, {
      token: alice.token,
      headers: { 'last-event-id': 'nonsense' },
    });
    expect(bad.status).toBe(400);
    // Bob's stream, resumed from the same point, has nothing of alice's.
    const bobs = await readSse(
      `${stack.gatewayUrl}/api/agent-factory/workspace/notifications/stream`,
      { authorization: `Bearer ${bob.token}`, 'last-event-id': lastEventId },
      { until: (f) => f.event === 'notification', timeoutMs: 2_500 },
    );
    expect(bobs.frames.filter((f) => f.event === 'notification')).toEqual([]);
  });
});

describe('file actions', () => {
  it("finds, reads, patches, copies, moves and deletes — only the owner's files", async () => {
    const folder = (await req(alice, 'POST', '/api/agent-factory/workspace/folders', { name: 'Briefs' })).body
      .folder;
    const up = await req(alice, 'POST', '/api/agent-factory/workspace/documents', {
      title: 'brief.md',
      content_type: 'text/markdown',
      content: '---\nauthor: alice\n---\n# Brief\nDraft text\n',
    });
    const id = up.body.document.id as string;
    const found = await node('find')('find_file_by_name', { name: 'brief' });
    expect(found.files.map((f: any) => f.document_id)).toEqual([id]);
    expect((await node('find', bob)('find_file_by_name', { name: 'brief' })).count).toBe(0);
    const read = await node('read')('read_file', { path: 'brief.md' });
    expect(read).toMatchObject({
      content: '# Brief\nDraft text\n',
      title: 'brief.md',
      frontmatter: { author: 'alice' },
    });
    const patched = await node('patch')('patch_file', {
      document_id: id,
      edits: [{ operation: 'replace', target: 'Draft', content: 'Final' }],
    });
    expect(patched).toMatchObject({ success: true, operations_applied: 1, version: 2 });
    const badPatch = await refusal(
      node('patch2')('patch_file', {
        document_id: id,
        edits: [{ operation: 'replace', target: 'absent', content: 'x' }],
      }),
    );
    expect(badPatch.violations[0]!.field).toBe('inputs.edits[0].target');
    const copy = await node('copy')(
      'copy_file',
      { document_id: id, target_folder_id: folder.id },
      { new_title: 'brief-copy.md' },
    );
    expect(copy).toMatchObject({ new_title: 'brief-copy.md', new_folder_path: '/Briefs' });
    expect(await node('move')('move_file', { document_id: id, target_folder_id: folder.id })).toEqual({
      success: true,
      new_folder_path: '/Briefs',
    });
    expect((await refusal(node('read', bob)('read_file', { document_id: id }))).code).toBe('NOT_FOUND');
    expect((await refusal(node('del', bob)('delete_file', { document_id: id }))).code).toBe('NOT_FOUND');
    const runId = randomUUID();
    expect(await node('del', alice, runId)('delete_file', { document_id: id })).toEqual({
      success: true,
      deleted_title: 'brief.md',
    });
    // Another attempt of the same node answers the first deletion.
    expect(await node('del', alice, runId)('delete_file', { document_id: id }, {}, 2)).toEqual({
      success: true,
      deleted_title: 'brief.md',
    });
    expect((await req(alice, 'GET', `/api/agent-factory/workspace/documents/${id}`)).status).toBe(404);
  });
});

describe('todos and team posts', () => {
  it('keeps todos to their owner', async () => {
    const created = await node('todo')(
      'create_todo',
      { title: 'Call the river trust', body: 'about the grant' },
      { priority: 'B', tags: ['calls'], deadline: '2026-12-01' },
    );
    const id = created.todo_id as string;
    expect(
      (
        await node('upd')(
          'update_todo',
          { todo_id: id },
          { state: 'NEXT', add_tags: ['urgent'], add_note: 'left a message' },
        )
      ).updated_fields,
    ).toEqual(['state', 'tags', 'notes']);
    expect((await node('search')('search_todos', { query: 'river' })).todos).toEqual([
      expect.objectContaining({
        todo_id: id,
        state: 'NEXT',
        tags: ['calls', 'urgent'],
        notes: ['left a message'],
        deadline: '2026-12-01',
      }),
    ]);
    expect((await refusal(node('upd', bob)('update_todo', { todo_id: id }, { state: 'DONE' }))).code).toBe(
      'NOT_FOUND',
    );
    expect((await node('search', bob)('search_todos', { query: 'river' })).count).toBe(0);
    const done = await node('done')('complete_todo', { todo_id: id }, { completion_note: 'granted' });
    expect(done.success).toBe(true);
    expect((await node('list')('list_todos', { state: 'DONE' })).todos.map((t: any) => t.todo_id)).toEqual([
      id,
    ]);
    expect(
      (await refusal(node('todo2')('create_todo', { title: 'x' }, { priority: 'Z' }))).violations[0]!.field,
    ).toBe('params.priority');
  });

  it('lets members of a team post and read, and nobody else', async () => {
    const team = `team-${randomUUID()}`;
    const post = await node('post', alice, randomUUID(), [team])('write_team_post', {
      content: 'Grant approved for River trust',
      team_id: team,
    });
    const reply = await node('reply', bob, randomUUID(), [team])(
      'write_team_post',
      { content: 'Great news', team_id: team },
      { thread_id: post.thread_id },
    );
    expect(reply.thread_id).toBe(post.thread_id);
    const found = await node('search', bob, randomUUID(), [team])('search_team_posts', {
      query: 'river',
      team_id: team,
    });
    expect(found.posts).toEqual([expect.objectContaining({ post_id: post.post_id, reply_count: 1 })]);
    expect(
      (await refusal(node('post', alice)('write_team_post', { content: 'x', team_id: team }))).code,
    ).toBe('NOT_FOUND');
    expect(
      (await refusal(node('search', alice)('search_team_posts', { query: 'x', team_id: team }))).code,
    ).toBe('NOT_FOUND');
  });

  it('broadcasts to a team once per node, for members only', async () => {
    const team = `team-${randomUUID()}`;
    const runId = randomUUID();
    const sent = await node('tell', alice, runId, [team])('broadcast_to_team', { message: 'Board meets Friday', team_id: team });
    expect(sent).toMatchObject({ success: true, delivered_to: 1 });
    const again = await node('tell', alice, runId, [team])('broadcast_to_team', { message: 'Board meets Friday', team_id: team }, {}, 2);
    expect(again.post_id).toBe(sent.post_id);
    const seen = await node('search', bob, randomUUID(), [team])('search_team_posts', { query: 'board', team_id: team });
    expect(seen.posts.map((p: any) => p.post_id)).toEqual([sent.post_id]);
    expect((await refusal(node('tell', bob)('broadcast_to_team', { message: 'x', team_id: team }))).code).toBe('NOT_FOUND');
    expect(
      (await refusal(node('tell', alice, randomUUID(), [team])('broadcast_to_team', { message: 'x', team_id: team }, { channel: 'sms' }))).violations[0]!.field,
    ).toBe('params.channel');
  });
});

describe('the folder destination', () => {
  it('creates the folder path when missing and files the rendering in it; a missing folder id is named', async () => {
    const title = `filed-${randomUUID().slice(0, 8)}`;
    const out = await node('file')(
      'route_output',
      { data: { note: 'filed away' } },
      { destinations: [{ type: 'folder', config: { folder: 'Reports/2026', filename_template: `${title}_{date}` } }, { type: 'folder', config: { folder_id: randomUUID() } }] },
    );
    expect(out.routing_report.map((r: any) => [r.destination, r.status])).toEqual([
      ['folder', 'success'],
      ['folder', 'error'],
    ]);
    expect(out.routing_report[1].error.code).toBe('NOT_FOUND');
    const docs = (await req(alice, 'GET', `/api/agent-factory/workspace/documents?query=${title}`)).body.documents;
    expect(docs).toEqual([expect.objectContaining({ folder_path: '/Reports/2026', title: expect.stringMatching(new RegExp(`^${title}_\\d{4}-\\d{2}-\\d{2}`)) })]);
  });
});

describe('team folders', () => {
  it("let the team's members search and read the documents in them, and nobody else", async () => {
    const team = (await req(alice, 'POST', '/api/v1/teams', { name: `Desk ${randomUUID().slice(0, 6)}` })).body.team.id as string;
    expect((await req(alice, 'POST', `/api/v1/teams/${team}/members`, { email: 'bob@example.com' })).status).toBe(201);
    const carol = await registerUser(stack.gatewayUrl, `carol-${randomUUID().slice(0, 6)}@example.com`);
    // A top-level folder shared with the team; its sub-folder inherits the team.
    const shared = await req(alice, 'POST', '/api/agent-factory/workspace/folders', { name: 'Desk files', team_id: team });
    expect(shared.status).toBe(201);
    expect(shared.body.folder).toMatchObject({ team_id: team, path: '/Desk files' });
    const sub = await req(alice, 'POST', '/api/agent-factory/workspace/folders', { name: 'Budgets', parent_id: shared.body.folder.id });
    expect(sub.body.folder).toMatchObject({ team_id: team, path: '/Desk files/Budgets' });
    // Sharing with a team one does not belong to: that team is not found.
    const foreign = await req(carol, 'POST', '/api/agent-factory/workspace/folders', { name: 'x', team_id: team });
    expect([foreign.status, foreign.body.error.violations[0].field]).toEqual([404, 'team_id']);

    const upload = async (title: string, content: string, folderId?: string) =>
      (
        await req(alice, 'POST', '/api/agent-factory/workspace/documents', {
          title,
          content_type: 'text/markdown',
          content,
          ...(folderId ? { folder_id: folderId } : {}),
        })
      ).body.document.id as string;
    const plan = await upload('River plan.md', '# Plan\nThe river budget is 10k. Budget review on Friday.', shared.body.folder.id);
    const budget = await upload('Budget 2026.md', 'Numbers for the year.', sub.body.folder.id);
    const privateDoc = await upload('Private budget.md', 'Mine only: budget.');

    const asBob = node('files', bob, randomUUID(), [team]);
    const found = await asBob('search_team_files', { query: 'budget', team_id: team });
    expect(found.documents.map((d: any) => d.document_id).sort()).toEqual([plan, budget].sort());
    expect(found.documents[0]).toMatchObject({ document_id: budget, folder_path: '/Desk files/Budgets', author: alice.id });
    expect(found.documents.find((d: any) => d.document_id === plan).snippet).toContain('river budget');
    const inSub = await asBob('search_team_files', { query: 'budget', team_id: team }, { folder_path: 'Desk files/Budgets' });
    expect(inSub.documents.map((d: any) => d.document_id)).toEqual([budget]);
    const read = await asBob('read_team_file', { document_id: plan, team_id: team }, { max_length: 6 });
    expect(read).toMatchObject({ title: 'River plan.md', content: '# Plan', truncated: true, metadata: { author: alice.id, folder_path: '/Desk files' } });

    // A document outside the team's folders, a non-member, a bad input: refused by name.
    expect((await refusal(asBob('read_team_file', { document_id: privateDoc, team_id: team }))).code).toBe('NOT_FOUND');
    const asCarol = node('files', carol, randomUUID(), []);
    expect((await refusal(asCarol('read_team_file', { document_id: plan, team_id: team }))).violations[0]).toMatchObject({ field: 'inputs.team_id' });
    expect((await refusal(asCarol('search_team_files', { query: 'budget', team_id: team }))).code).toBe('NOT_FOUND');
    expect((await refusal(asBob('search_team_files', { team_id: team }))).violations[0]!.field).toBe('inputs.query');
    expect((await refusal(asBob('search_team_files', { query: 'x', team_id: team }, { max_results: 0 }))).violations[0]!.field).toBe('params.max_results');

    // The same files through the gateway, for members only.
    const listed = await req(bob, 'GET', `/api/agent-factory/workspace/teams/${team}/files`);
    expect([listed.status, listed.body.files.map((f: any) => f.document.id).sort()]).toEqual([200, [plan, budget].sort()]);
    const searched = await req(bob, 'GET', `/api/agent-factory/workspace/teams/${team}/files?query=river`);
    expect(searched.body.files).toEqual([expect.objectContaining({ author: alice.id, snippet: expect.stringContaining('river budget'), document: expect.objectContaining({ id: plan }) })]);
    const one = await req(bob, 'GET', `/api/agent-factory/workspace/teams/${team}/files/${budget}`);
    expect([one.status, one.body.content, one.body.file.document.folder_path]).toEqual([200, 'Numbers for the year.', '/Desk files/Budgets']);
    expect((await req(bob, 'GET', `/api/agent-factory/workspace/teams/${team}/files/${privateDoc}`)).status).toBe(404);
    expect((await req(carol, 'GET', `/api/agent-factory/workspace/teams/${team}/files`)).status).toBe(404);
    expect((await req(carol, 'GET', `/api/agent-factory/workspace/teams/${team}/files/${plan}`)).status).toBe(404);
    const badQuery = await req(bob, 'GET', `/api/agent-factory/workspace/teams/${team}/files?max_results=500`);
    expect([badQuery.status, badQuery.body.error.violations[0].field]).toEqual([400, 'max_results']);

    // The team's posts through the gateway: members see them, anyone else gets 404.
    const post = await node('post', alice, randomUUID(), [team])('write_team_post', { content: 'Budget files are in Desk files', team_id: team });
    const asMember = await req(bob, 'GET', `/api/agent-factory/workspace/teams/${team}/posts`);
    expect([asMember.status, asMember.body.posts.map((p: any) => p.id ?? p.post_id)]).toEqual([200, [post.post_id]]);
    expect((await req(carol, 'GET', `/api/agent-factory/workspace/teams/${team}/posts`)).status).toBe(404);
  }, 60_000);
});

describe('a crash mid-delivery', () => {
  it('replays after kill -9: the document is not written twice, the webhook carries the same delivery id', async () => {
    const runId = randomUUID();
    const title = `crash-${runId.slice(0, 8)}`;
    const destinations = [
      { type: 'document', config: { filename_template: title } },
      { type: 'webhook', config: { url: `${receiver.url}/slow` } },
    ];
    const first = node('route', alice, runId)(
      'route_output',
      { data: { note: 'x' } },
      { destinations },
    ).catch((err: unknown) => err);
    while (receiver.requestsTo('POST', '/slow').length < 1) await new Promise((r) => setTimeout(r, 50));
    const router = stack.services['output-router']!;
    await router.kill();
    expect((await first) as AppError).toMatchObject({ code: 'UNAVAILABLE' });
    await router.start();

    const again = await node('route', alice, runId)(
      'route_output',
      { data: { note: 'x' } },
      { destinations },
      2,
    );
    expect(again.routing_report.map((r: any) => [r.destination, r.status, r.replayed ?? false])).toEqual([
      ['document', 'success', true],
      ['webhook', 'success', false],
    ]);
    const docs = await req(alice, 'GET', `/api/agent-factory/workspace/documents?query=${title}`);
    expect(docs.body.documents).toHaveLength(1);
    // The webhook's row is written only after a 2xx: the unanswered first POST is sent again, with the same X-AF-Delivery for the receiver to drop.
    const posts = receiver.requestsTo('POST', '/slow');
    expect(posts).toHaveLength(2);
    expect(new Set(posts.map((p) => p.headers['x-af-delivery']))).toEqual(
      new Set([`${runId}:route:1-webhook`]),
    );
  }, 60_000);
});
