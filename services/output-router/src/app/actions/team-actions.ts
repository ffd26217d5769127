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
import { summarizeThread } from '../../domain/thread-summary.js';
import { parse } from '../parse.js';
import { TeamFiles } from '../team-files.js';
import type { ActionDeps } from './context.js';
import { memberOf } from './inbox-actions.js';

/** The most posts of one thread a summary reads. */
const MAX_THREAD_POSTS = 1000;

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

  const files = new TeamFiles(d.documents.repo);
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
      const hits = await files.search(
        ctx.principal,
        { teamId: i.team_id, query: i.query, maxResults: p.max_results, ...(p.folder_path ? { folderPath: p.folder_path } : {}), ...(p.file_types ? { fileTypes: p.file_types } : {}) },
        { team: 'inputs.team_id', query: 'inputs.query' },
      );
      const documents = hits.map((h) => ({
        document_id: h.meta.id,
        title: h.meta.title,
        snippet: h.snippet,
        score: h.score,
        folder_path: h.meta.folderPath,
        author: h.meta.author,
        updated_at: h.meta.updatedAt.toISOString(),
      }));
      return { documents, count: documents.length };
    },
  };

  const read: ActionHandler = {
    name: 'read_team_file',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ document_id: z.string().min(1), team_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(z.object({ max_length: z.number().int().min(1).max(10_000_000).optional() }), ctx.params, 'params');
      const got = await files.read(ctx.principal, i.team_id, i.document_id, { team: 'inputs.team_id', document: 'inputs.document_id' });
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
