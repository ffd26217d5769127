import { defaultActionRegistry } from '@af/plan';
import type { ActionContext } from '@af/service-kit';
import { monitorActions } from './monitor-actions.js';

const folder = { id: '11111111-1111-4111-8111-111111111111', name: 'filings', parentId: null, path: '/filings', createdAt: new Date() };
const doc = (id: string, title: string, created: string, updated: string, version = 1) => ({
  id,
  title,
  folderId: folder.id,
  folderPath: '/filings',
  contentType: 'application/pdf',
  sizeBytes: 10,
  version,
  source: {},
  createdAt: new Date(created),
  updatedAt: new Date(updated),
});
let docs = [doc('a', 'one.pdf', '2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z'), doc('b', 'two.txt', '2026-01-01T11:00:00Z', '2026-01-01T11:00:00Z')];
const posts = [
  { id: 'p1', threadId: 't1', teamId: 'team', author: 'u', content: 'hello there', format: 'plain', createdAt: new Date('2026-01-01T10:00:00Z') },
  { id: 'p2', threadId: 't1', teamId: 'team', author: 'u', content: 'hi', format: 'plain', createdAt: new Date('2026-01-01T12:00:00Z') },
];
const kept = new Map<string, unknown>();
const listings = {
  save: async (owner: string, hash: string, listing: unknown) => void kept.set(`${owner}:${hash}`, listing),
  load: async (owner: string, hash: string) => kept.get(`${owner}:${hash}`) as never,
};
const deps = {
  listings,
  documents: { repo: { folder: async (_o: string, id: string) => (id === folder.id ? folder : undefined), listFolders: async () => [folder], listDocuments: async () => docs } },
  inbox: { posts: async () => posts },
} as never;
const [files, changes, teamPosts] = monitorActions(deps);
const ctx = (inputs: Record<string, unknown>, params: Record<string, unknown> = {}) =>
  ({ action: 'x', inputs, params, principal: { userId: 'u', teamIds: ['team'] } }) as unknown as ActionContext;

it.each(monitorActions(deps).map((h) => [h.name, h.sideEffects] as const))('%s: side effects as the registry says (%s)', (name, sideEffects) => {
  expect(defaultActionRegistry().get(name)?.sideEffect === true).toBe(sideEffects);
});

describe('detect_new_files', () => {
  it('reports files after the watermark, oldest first, and the latest time as the new watermark', async () => {
    const all = (await files!.execute(ctx({ folder_id: folder.id }))) as Record<string, any>;
    expect([all.count, all.watermark]).toEqual([2, '2026-01-01T11:00:00.000Z']);
    const after = (await files!.execute(ctx({ folder_id: folder.id }, { watermark: '2026-01-01T10:00:00.000Z' }))) as Record<string, any>;
    expect(after.files.map((f: any) => f.file_id)).toEqual(['b']);
    const none = (await files!.execute(ctx({ folder_id: folder.id }, { watermark: all.watermark }))) as Record<string, any>;
    expect([none.count, none.watermark]).toEqual([0, all.watermark]);
    const pdf = (await files!.execute(ctx({ folder_id: folder.id }, { file_types: ['.PDF'] }))) as Record<string, any>;
    expect(pdf.files.map((f: any) => f.filename)).toEqual(['one.pdf']);
  });

  it('names a bad folder and a bad watermark', async () => {
    await expect(files!.execute(ctx({ folder_id: 'nope' }))).rejects.toThrow(/inputs.folder_id: folder nope not found/);
    await expect(files!.execute(ctx({ folder_id: folder.id }, { watermark: 'yesterday' }))).rejects.toThrow(/params.watermark/);
  });
});

describe('detect_folder_changes', () => {
  it('an unchanged folder (same hash) reports nothing; an edit is modified, a new file added', async () => {
    const first = (await changes!.execute(ctx({ folder_id: folder.id }))) as Record<string, any>;
    expect([first.added_count, first.watermark]).toEqual([2, expect.stringMatching(/^[0-9a-f]{64}$/)]);
    expect(((await changes!.execute(ctx({ folder_id: folder.id }, { watermark: first.watermark }))) as Record<string, any>).changes).toEqual([]);
    docs = [doc('a', 'one.pdf', '2026-01-01T10:00:00Z', '2026-01-02T10:00:00Z', 2), docs[1]!, doc('c', 'three.pdf', '2026-01-02T11:00:00Z', '2026-01-02T11:00:00Z')];
    const next = (await changes!.execute(ctx({ folder_id: folder.id }, { watermark: first.watermark, since: '2026-01-02T00:00:00Z' }))) as Record<string, any>;
    expect(next.changes.map((c: any) => [c.file_id, c.change_type])).toEqual([['a', 'modified'], ['c', 'added']]);
    expect(next.watermark).not.toBe(first.watermark);
  });

  it('reports deletions against the listing its watermark was taken of, and filters by change_types', async () => {
    docs = [doc('a', 'one.pdf', '2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z'), doc('b', 'two.txt', '2026-01-01T11:00:00Z', '2026-01-01T11:00:00Z')];
    const first = (await changes!.execute(ctx({ folder_id: folder.id }))) as Record<string, any>;
    docs = [doc('b', 'two.txt', '2026-01-01T11:00:00Z', '2026-01-03T11:00:00Z', 2)];
    const next = (await changes!.execute(ctx({ folder_id: folder.id }, { watermark: first.watermark }))) as Record<string, any>;
    expect(next.changes.map((c: any) => [c.file_id, c.filename, c.change_type])).toEqual([['b', 'two.txt', 'modified'], ['a', 'one.pdf', 'deleted']]);
    expect([next.added_count, next.modified_count, next.deleted_count, next.deletions_known]).toEqual([0, 1, 1, true]);
    const onlyDeleted = (await changes!.execute(ctx({ folder_id: folder.id }, { watermark: first.watermark, change_types: ['deleted'] }))) as Record<string, any>;
    expect(onlyDeleted.changes.map((c: any) => c.file_id)).toEqual(['a']);
    // Another owner's listings are not theirs to compare with.
    const stranger = (await changes!.execute({ ...ctx({ folder_id: folder.id }, { watermark: first.watermark }), principal: { userId: 'v', teamIds: [] } } as ActionContext)) as Record<string, any>;
    expect([stranger.deleted_count, stranger.deletions_known]).toEqual([0, false]);
  });

  it('names a bad change type and a bad watermark', async () => {
    await expect(changes!.execute(ctx({ folder_id: folder.id }, { change_types: ['renamed'] }))).rejects.toThrow(/params.change_types/);
    await expect(changes!.execute(ctx({ folder_id: folder.id }, { watermark: 'abc' }))).rejects.toThrow(/params.watermark/);
  });
});

describe('detect_new_team_posts', () => {
  it('reports posts after the watermark; a non-member sees no team', async () => {
    const r = (await teamPosts!.execute(ctx({ team_id: 'team' }, { watermark: '2026-01-01T10:00:00.000Z' }))) as Record<string, any>;
    expect([r.posts.map((p: any) => p.post_id), r.watermark]).toEqual([['p2'], '2026-01-01T12:00:00.000Z']);
    expect(((await teamPosts!.execute(ctx({ team_id: 'team' }, { min_length: 5 }))) as Record<string, any>).count).toBe(1);
    await expect(teamPosts!.execute(ctx({ team_id: 'other' }))).rejects.toThrow(/inputs.team_id: team other not found/);
  });
});
