/**
 * Team actions for members of the team only — anyone else gets NOT_FOUND,
 * as for the team's posts:
 * - summarize_team_thread: an extractive summary of a team thread (who took
 *   part, key points, action items, decisions; see domain/thread-summary.ts);
 * - search_team_files / read_team_file: documents in the team's shared
 *   folders (a folder created with a `team_id`, and its sub-folders).
 */
import { AppError, type ActionHandler } from '@af/service-kit';
import { z } from 'zod';
import { isTextType } from '../../domain/content-policy.js';
import { queryTerms, scoreFile } from '../../domain/team-file-search.js';
import { summarizeThread } from '../../domain/thread-summary.js';
import { parse } from '../parse.js';
import type { ActionDeps } from './context.js';
import { memberOf } from './inbox-actions.js';

/** The most posts of one thread a summary reads. */
const MAX_THREAD_POSTS = 1000;
/** The most documents of a team (newest first) one search reads. */
const MAX_SEARCHED_FILES = 500;

/** `Reports/2026`, `/Reports/2026/` → `/Reports/2026`. */
const folderPath = (p: string) => `/${p.split('/').filter(Boolean).join('/')}`;

export function teamActions(d: ActionDeps): ActionHandler[] {
  const summarize: ActionHandler = {
    name: 'summarize_team_thread',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ thread_id: z.string().min(1), team_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({
          max_length: z.number().int().min(20).max(100_000).optional(),
          focus: z.enum(['decisions', 'action_items', 'key_points']).optional(),
        }),
        ctx.params,
        'params',
      );
      memberOf(ctx, i.team_id, 'inputs.team_id');
      const posts = await d.inbox.posts(i.team_id, { threadId: i.thread_id, limit: MAX_THREAD_POSTS });
      if (!posts.length)
        throw new AppError('NOT_FOUND', `inputs.thread_id: thread ${i.thread_id} not found in team ${i.team_id}`, {
          violations: [{ field: 'inputs.thread_id', reason: 'not found' }],
        });
      return {
        ...summarizeThread(
          posts.map((x) => ({ author: x.author, content: x.content, createdAt: x.createdAt })),
          { ...(p.max_length !== undefined ? { maxLength: p.max_length } : {}), ...(p.focus ? { focus: p.focus } : {}) },
        ),
      };
    },
  };

  const search: ActionHandler = {
    name: 'search_team_files',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ query: z.string().trim().min(1).max(1000), team_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({
          max_results: z.number().int().min(1).max(100).default(10),
          folder_path: z.string().min(1).max(500).optional(),
          file_types: z.array(z.string().min(1)).max(20).optional(),
        }),
        ctx.params,
        'params',
      );
      memberOf(ctx, i.team_id, 'inputs.team_id');
      const terms = queryTerms(i.query);
      if (!terms.length) throw AppError.invalid('inputs.query', 'has no words to search for');
      let docs = await d.documents.repo.teamDocuments(i.team_id, {
        ...(p.folder_path ? { folderPath: folderPath(p.folder_path) } : {}),
        limit: MAX_SEARCHED_FILES,
      });
      if (p.file_types?.length) {
        const want = p.file_types.map((t) => t.toLowerCase().replace(/^\./, ''));
        docs = docs.filter((doc) => want.some((t) => doc.contentType === t || doc.title.toLowerCase().endsWith(`.${t}`) || doc.contentType.endsWith(`/${t}`)));
      }
      const hits = [];
      for (const doc of docs) {
        const text = isTextType(doc.contentType) ? (await d.documents.repo.teamDocument(i.team_id, doc.id))?.content.toString('utf8') : undefined;
        const hit = scoreFile({ title: doc.title, ...(text !== undefined ? { text } : {}) }, terms);
        if (hit) hits.push({ document_id: doc.id, title: doc.title, snippet: hit.snippet, score: hit.score, folder_path: doc.folderPath, author: doc.author, updated_at: doc.updatedAt.toISOString() });
      }
      hits.sort((a, b) => b.score - a.score || b.updated_at.localeCompare(a.updated_at));
      const documents = hits.slice(0, p.max_results);
      return { documents, count: documents.length };
    },
  };

  const read: ActionHandler = {
    name: 'read_team_file',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ document_id: z.string().min(1), team_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(z.object({ max_length: z.number().int().min(1).max(10_000_000).optional() }), ctx.params, 'params');
      memberOf(ctx, i.team_id, 'inputs.team_id');
      const got = await d.documents.repo.teamDocument(i.team_id, i.document_id);
      if (!got)
        throw new AppError('NOT_FOUND', `inputs.document_id: document ${i.document_id} not found in the shared folders of team ${i.team_id}`, {
          violations: [{ field: 'inputs.document_id', reason: 'not found' }],
        });
      if (!isTextType(got.meta.contentType))
        throw new AppError('FAILED_PRECONDITION', `inputs.document_id: document ${i.document_id} is ${got.meta.contentType}, not text`);
      const full = got.content.toString('utf8');
      const content = p.max_length !== undefined && full.length > p.max_length ? full.slice(0, p.max_length) : full;
      return {
        content,
        title: got.meta.title,
        truncated: content.length < full.length,
        metadata: {
          author: got.meta.author,
          last_modified: got.meta.updatedAt.toISOString(),
          folder_path: got.meta.folderPath,
          content_type: got.meta.contentType,
          version: got.meta.version,
        },
      };
    },
  };
  return [summarize, search, read];
}
