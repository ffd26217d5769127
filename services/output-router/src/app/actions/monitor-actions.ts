/**
 * Monitor detection over the workspace: detect_new_files, detect_folder_changes
 * and detect_new_team_posts. Each reads what changed since `params.watermark`
 * (the orchestrator hands in the monitor step's stored one) and answers the new
 * watermark; nothing is written here — the orchestrator stores the watermark
 * when the monitor's run completes.
 *
 * - files: a `timestamp` watermark, the latest created/modified time seen;
 * - folder changes: a `hash` watermark, the sha256 of the folder's listing
 *   (document ids and versions), so an unchanged folder reports nothing. The
 *   listing itself is kept under its hash (folder_listings), so the next check
 *   compares the folder with the listing its watermark was taken of: adds,
 *   edits (another version) and deletions. The one write here is that
 *   listing, keyed by its content (idempotent). When a watermark's listing is
 *   no longer kept, adds and edits are told apart by `params.since` (the
 *   step's last check time) and `deletions_known` is false;
 * - team posts: a `timestamp` watermark, the latest post time seen.
 */
import { createHash } from 'node:crypto';
import { AppError, type ActionContext, type ActionHandler } from '@af/service-kit';
import { z } from 'zod';
import type { DocumentMeta } from '../../domain/workspace.js';
import { parse } from '../parse.js';
import type { ActionDeps } from './context.js';
import type { ListingEntry } from '../../infra/folder-listings.js';

/** Documents and posts looked at per check (the newest first). */
const SCAN_LIMIT = 1000;

const instant = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 instant');

async function folderDocuments(d: ActionDeps, ctx: ActionContext, folderId: string, subfolders: boolean): Promise<DocumentMeta[]> {
  const owner = ctx.principal.userId;
  const folder = await d.documents.repo.folder(owner, folderId);
  if (!folder)
    throw new AppError('NOT_FOUND', `inputs.folder_id: folder ${folderId} not found`, {
      violations: [{ field: 'inputs.folder_id', reason: 'not found' }],
    });
  const ids = [folder.id];
  if (subfolders) {
    for (const f of await d.documents.repo.listFolders(owner)) if (f.path.startsWith(`${folder.path}/`)) ids.push(f.id);
  }
  const docs: DocumentMeta[] = [];
  for (const id of ids) docs.push(...(await d.documents.repo.listDocuments(owner, { folderId: id, limit: SCAN_LIMIT })));
  return docs;
}

const extension = (title: string) => (title.includes('.') ? title.slice(title.lastIndexOf('.') + 1).toLowerCase() : '');

const fileRef = (doc: DocumentMeta) => ({
  file_id: doc.id,
  filename: doc.title,
  file_type: doc.contentType,
  size_bytes: doc.sizeBytes,
  created_at: doc.createdAt.toISOString(),
  modified_at: doc.updatedAt.toISOString(),
  folder_path: doc.folderPath,
});

const latest = (times: number[], previous: string | undefined) => {
  const max = Math.max(previous ? Date.parse(previous) : Number.NEGATIVE_INFINITY, ...times);
  return Number.isFinite(max) ? new Date(max).toISOString() : (previous ?? new Date(0).toISOString());
};

export function monitorActions(d: ActionDeps): ActionHandler[] {
  const newFiles: ActionHandler = {
    name: 'detect_new_files',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ folder_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({
          file_types: z.array(z.string().min(1)).optional(),
          include_subfolders: z.boolean().default(false),
          watermark: instant.optional(),
        }),
        ctx.params,
        'params',
      );
      const since = p.watermark ? Date.parse(p.watermark) : Number.NEGATIVE_INFINITY;
      const types = p.file_types?.map((t) => t.replace(/^\./, '').toLowerCase());
      const docs = (await folderDocuments(d, ctx, i.folder_id, p.include_subfolders)).filter(
        (doc) => !types || types.includes(extension(doc.title)),
      );
      const fresh = docs.filter((doc) => doc.updatedAt.getTime() > since).sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime());
      return {
        files: fresh.map(fileRef),
        count: fresh.length,
        watermark: latest(fresh.map((doc) => doc.updatedAt.getTime()), p.watermark),
        watermark_type: 'timestamp',
        previous_watermark: p.watermark ?? null,
      };
    },
  };

  const folderChanges: ActionHandler = {
    name: 'detect_folder_changes',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ folder_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({
          include_subfolders: z.boolean().default(false),
          change_types: z.array(z.enum(['added', 'modified', 'deleted'])).optional(),
          watermark: z.string().regex(/^[0-9a-f]{64}$/, 'a hash watermark is a sha256 hex digest').optional(),
          since: instant.optional(),
        }),
        ctx.params,
        'params',
      );
      const owner = ctx.principal.userId;
      const docs = (await folderDocuments(d, ctx, i.folder_id, p.include_subfolders)).sort((a, b) => a.id.localeCompare(b.id));
      const hash = createHash('sha256')
        .update(JSON.stringify(docs.map((doc) => [doc.id, doc.version])))
        .digest('hex');
      // The listing behind this watermark, for the next check to compare with (deletions included).
      await d.listings.save(owner, hash, docs.map((doc): ListingEntry => [doc.id, doc.version, doc.title]));
      const empty = { changes: [], added_count: 0, modified_count: 0, deleted_count: 0, deletions_known: true, watermark: hash, watermark_type: 'hash' };
      if (p.watermark === hash) return empty;
      const wanted = new Set(p.change_types ?? ['added', 'modified', 'deleted']);
      const versionOf = (doc: DocumentMeta) => createHash('sha256').update(`${doc.id}:${doc.version}`).digest('hex');
      const previous = p.watermark ? await d.listings.load(owner, p.watermark) : [];
      let changes: Array<Record<string, unknown> & { change_type: string }>;
      if (previous) {
        // Against the listing the watermark was taken of: new ids added, other versions modified, missing ids deleted.
        const before = new Map(previous.map(([id, version, title]) => [id, { version, title }]));
        const now = new Set(docs.map((doc) => doc.id));
        changes = [
          ...docs
            .filter((doc) => before.get(doc.id)?.version !== doc.version)
            .map((doc) => {
              const old = before.get(doc.id);
              return {
                file_id: doc.id,
                filename: doc.title,
                change_type: old ? 'modified' : 'added',
                old_hash: old ? createHash('sha256').update(`${doc.id}:${old.version}`).digest('hex') : null,
                new_hash: versionOf(doc),
                timestamp: doc.updatedAt.toISOString(),
              };
            }),
          ...previous
            .filter(([id]) => !now.has(id))
            .map(([id, version, title]) => ({
              file_id: id,
              filename: title,
              change_type: 'deleted',
              old_hash: createHash('sha256').update(`${id}:${version}`).digest('hex'),
              new_hash: null,
              timestamp: null,
            })),
        ];
      } else {
        // The watermark's listing is no longer kept (unused for 90 days): adds and edits by time, deletions unknown.
        const since = p.since ? Date.parse(p.since) : Number.NEGATIVE_INFINITY;
        changes = docs
          .filter((doc) => doc.updatedAt.getTime() > since)
          .map((doc) => ({
            file_id: doc.id,
            filename: doc.title,
            change_type: doc.createdAt.getTime() > since ? 'added' : 'modified',
            old_hash: null,
            new_hash: versionOf(doc),
            timestamp: doc.updatedAt.toISOString(),
          }));
      }
      changes = changes.filter((c) => wanted.has(c.change_type));
      const count = (type: string) => changes.filter((c) => c.change_type === type).length;
      return {
        ...empty,
        changes,
        added_count: count('added'),
        modified_count: count('modified'),
        deleted_count: count('deleted'),
        deletions_known: Boolean(previous),
      };
    },
  };

  const newPosts: ActionHandler = {
    name: 'detect_new_team_posts',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ team_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({
          thread_ids: z.array(z.string().min(1)).optional(),
          min_length: z.number().int().min(0).optional(),
          watermark: instant.optional(),
        }),
        ctx.params,
        'params',
      );
      // Not a member: the team's posts do not exist for this caller.
      if (!ctx.principal.teamIds.includes(i.team_id))
        throw new AppError('NOT_FOUND', `inputs.team_id: team ${i.team_id} not found`, {
          violations: [{ field: 'inputs.team_id', reason: 'not found' }],
        });
      const since = p.watermark ? Date.parse(p.watermark) : Number.NEGATIVE_INFINITY;
      const posts = (await d.inbox.posts(i.team_id, { limit: SCAN_LIMIT }))
        .filter((x) => x.createdAt.getTime() > since)
        .filter((x) => !p.thread_ids || p.thread_ids.includes(x.threadId))
        .filter((x) => p.min_length === undefined || x.content.length >= p.min_length)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
      return {
        posts: posts.map((x) => ({
          post_id: x.id,
          thread_id: x.threadId,
          author: x.author,
          content: x.content,
          created_at: x.createdAt.toISOString(),
          reply_count: x.replyCount ?? 0,
        })),
        count: posts.length,
        watermark: latest(posts.map((x) => x.createdAt.getTime()), p.watermark),
        watermark_type: 'timestamp',
      };
    },
  };

  return [newFiles, folderChanges, newPosts];
}
