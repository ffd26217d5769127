/**
 * summarize_team_thread: an extractive summary of a team thread (who took
 * part, key points, action items, decisions; see domain/thread-summary.ts),
 * for members of the team only — anyone else gets NOT_FOUND, as for the
 * team's posts.
 */
import { AppError, type ActionHandler } from '@af/service-kit';
import { z } from 'zod';
import { summarizeThread } from '../../domain/thread-summary.js';
import { parse } from '../parse.js';
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
  return [summarize];
}
