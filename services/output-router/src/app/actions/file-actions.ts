/** The granular file actions: read_file, find_file_by_name, patch_file, copy_file, move_file, delete_file. */
import { AppError, type ActionHandler } from '@af/service-kit';
import { z } from 'zod';
import { applyEdits } from '../../domain/patch.js';
import { parse } from '../parse.js';
import { actionKey, originOf, type ActionDeps } from './context.js';

const MY_DOCS = z.enum(['my_docs', 'team_docs', 'global_docs', 'all']).optional();

function onlyMyDocs(scope: string | undefined, field: string) {
  // Team and global documents are not held by this workspace yet: say so rather than answer an empty result.
  if (scope && scope !== 'my_docs' && scope !== 'all')
    throw new AppError('FAILED_PRECONDITION', `${field}: scope ${scope} is not available; use my_docs`, {
      violations: [{ field, reason: 'not available' }],
    });
}

/** `---\nkey: value\n---\n` at the top of a text: its simple key/value pairs and the rest. */
function frontmatter(text: string): { data: Record<string, string>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return { data: {}, body: text };
  const data: Record<string, string> = {};
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
    if (kv) data[kv[1]!] = kv[2]!;
  }
  return { data, body: text.slice(m[0].length) };
}

export function fileActions(d: ActionDeps): ActionHandler[] {
  const readFile: ActionHandler = {
    name: 'read_file',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(
        z.object({
          document_id: z.string().optional(),
          path: z.string().optional(),
          scope: MY_DOCS,
          team_id: z.string().optional(),
        }),
        ctx.inputs,
        'inputs',
      );
      const p = parse(
        z.object({
          max_length: z.number().int().min(1).optional(),
          include_frontmatter: z.boolean().default(false),
        }),
        ctx.params,
        'params',
      );
      onlyMyDocs(i.scope, 'inputs.scope');
      let id = i.document_id;
      if (!id && i.path) {
        const parts = i.path.split('/').filter(Boolean);
        const title = parts.pop() ?? '';
        const folderPath = parts.length ? `/${parts.join('/')}` : '';
        const hit = (
          await d.documents.repo.listDocuments(ctx.principal.userId, { query: title, exact: true, limit: 50 })
        ).find((doc) => doc.folderPath === folderPath);
        if (!hit)
          throw new AppError('NOT_FOUND', `inputs.path: no document at ${i.path}`, {
            violations: [{ field: 'inputs.path', reason: 'not found' }],
          });
        id = hit.id;
      }
      if (!id) throw AppError.invalid('inputs.document_id', 'document_id or path is required');
      const { meta, text } = await d.documents.text(ctx.principal.userId, id, 'inputs.document_id');
      const fm = frontmatter(text);
      const content = p.include_frontmatter ? text : fm.body;
      return {
        content: p.max_length ? content.slice(0, p.max_length) : content,
        title: meta.title,
        file_type: meta.contentType,
        frontmatter: fm.data,
        metadata: {
          document_id: meta.id,
          folder_path: meta.folderPath,
          version: meta.version,
          size_bytes: meta.sizeBytes,
          last_modified: meta.updatedAt.toISOString(),
        },
      };
    },
  };

  const findFile: ActionHandler = {
    name: 'find_file_by_name',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(
        z.object({ name: z.string().min(1), scope: MY_DOCS, team_id: z.string().optional() }),
        ctx.inputs,
        'inputs',
      );
      const p = parse(
        z.object({
          exact_match: z.boolean().default(false),
          file_types: z.array(z.string()).optional(),
          folder_id: z.string().optional(),
        }),
        ctx.params,
        'params',
      );
      onlyMyDocs(i.scope, 'inputs.scope');
      if (p.folder_id) await d.documents.folderOrFail(ctx.principal.userId, p.folder_id, 'params.folder_id');
      let docs = await d.documents.repo.listDocuments(ctx.principal.userId, {
        query: i.name,
        exact: p.exact_match,
        limit: 100,
        ...(p.folder_id ? { folderId: p.folder_id } : {}),
      });
      if (p.file_types?.length) {
        const want = p.file_types.map((t) => t.toLowerCase().replace(/^\./, ''));
        docs = docs.filter((doc) =>
          want.some((t) => doc.contentType === t || doc.title.toLowerCase().endsWith(`.${t}`)),
        );
      }
      const files = docs.map((doc) => ({
        document_id: doc.id,
        title: doc.title,
        folder_path: doc.folderPath,
        file_type: doc.contentType,
        size_bytes: doc.sizeBytes,
        updated_at: doc.updatedAt.toISOString(),
      }));
      return { files, count: files.length };
    },
  };

  const patchFile: ActionHandler = {
    name: 'patch_file',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(z.object({ document_id: z.string().min(1), edits: z.unknown() }), ctx.inputs, 'inputs');
      const owner = ctx.principal.userId;
      const { meta, text } = await d.documents.text(owner, i.document_id, 'inputs.document_id');
      const r = applyEdits(text, i.edits, 'inputs.edits');
      if (!r.ok) throw AppError.invalid(r.field, r.reason);
      const bytes = new TextEncoder().encode(r.text);
      d.documents.check(meta.contentType, bytes, 'inputs');
      const { details } = await d.deliveries.once(actionKey(ctx), owner, 'document', async (q) => {
        const doc = await d.documents.repo.addVersion(owner, meta.id, bytes, meta.contentType, q);
        return { document_id: doc!.id, version: doc!.version };
      });
      return {
        success: true,
        operations_applied: r.applied,
        new_content_length: r.text.length,
        version: details.version,
      };
    },
  };

  const copyFile: ActionHandler = {
    name: 'copy_file',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(
        z.object({ document_id: z.string().min(1), target_folder_id: z.string().min(1) }),
        ctx.inputs,
        'inputs',
      );
      const p = parse(z.object({ new_title: z.string().min(1).max(255).optional() }), ctx.params, 'params');
      const owner = ctx.principal.userId;
      const got = await d.documents.repo.content(owner, i.document_id);
      if (!got)
        throw new AppError('NOT_FOUND', `document ${i.document_id} not found`, {
          violations: [{ field: 'inputs.document_id', reason: 'not found' }],
        });
      const folder = await d.documents.folderOrFail(owner, i.target_folder_id, 'inputs.target_folder_id');
      const { details } = await d.deliveries.once(actionKey(ctx), owner, 'document', async (q) => {
        const doc = await d.documents.repo.create(
          {
            owner,
            title: p.new_title ?? got.meta.title,
            contentType: got.meta.contentType,
            content: got.content,
            folderId: folder.id,
            origin: originOf(ctx),
          },
          q,
        );
        return { new_document_id: doc.id, new_title: doc.title, new_folder_path: folder.path };
      });
      return details;
    },
  };

  const moveFile: ActionHandler = {
    name: 'move_file',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(
        z.object({ document_id: z.string().min(1), target_folder_id: z.string().min(1) }),
        ctx.inputs,
        'inputs',
      );
      const owner = ctx.principal.userId;
      await d.documents.docOrFail(owner, i.document_id, 'inputs.document_id');
      const folder = await d.documents.folderOrFail(owner, i.target_folder_id, 'inputs.target_folder_id');
      await d.documents.repo.move(owner, i.document_id, folder.id);
      return { success: true, new_folder_path: folder.path };
    },
  };

  const deleteFile: ActionHandler = {
    name: 'delete_file',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(z.object({ document_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(z.object({ confirm: z.boolean().optional() }), ctx.params, 'params');
      if (p.confirm === false)
        throw new AppError('FAILED_PRECONDITION', 'params.confirm: is false; nothing was deleted', {
          violations: [{ field: 'params.confirm', reason: 'is false' }],
        });
      // Recorded with the delete: a replayed node answers the first deletion instead of NOT_FOUND.
      const { details } = await d.deliveries.once(
        actionKey(ctx),
        ctx.principal.userId,
        'delete',
        async (q) => {
          const gone = await d.documents.repo.delete(ctx.principal.userId, i.document_id, q);
          if (!gone)
            throw new AppError('NOT_FOUND', `document ${i.document_id} not found`, {
              violations: [{ field: 'inputs.document_id', reason: 'not found' }],
            });
          return { success: true, deleted_title: gone.title };
        },
      );
      return details;
    },
  };

  return [readFile, findFile, patchFile, copyFile, moveFile, deleteFile];
}
