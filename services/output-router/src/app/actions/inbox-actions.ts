/** Notifications, todos and team posts as actions. Team actions need the team in the principal's team ids (else NOT_FOUND). */
import { AppError, type ActionContext, type ActionHandler } from '@af/service-kit';
import { z } from 'zod';
import { parse } from '../parse.js';
import {
  addTodoNote,
  applyTodoPatch,
  completeTodo as completeTodoOf,
  createTodo as createTodoOf,
  NewTodoInputs,
  NewTodoParams,
  TODO_STATES,
  TodoPatch,
  todoDate,
  todoOrFail,
} from '../todos.js';
import { actionKey, originOf, type ActionDeps } from './context.js';

const date = todoDate;
const STATES = TODO_STATES;

export function memberOf(ctx: ActionContext, teamId: string, field: string): void {
  // Not a member: the team's posts do not exist for this caller.
  if (!ctx.principal.teamIds.includes(teamId))
    throw new AppError('NOT_FOUND', `${field}: team ${teamId} not found`, {
      violations: [{ field, reason: 'not found' }],
    });
}

const todoView = (t: {
  id: string;
  title: string;
  body: string;
  state: string;
  priority: string;
  deadline: string | null;
  scheduled: string | null;
  tags: string[];
  notes: string[];
  createdAt: Date;
  completedAt: Date | null;
}) => ({
  todo_id: t.id,
  title: t.title,
  body: t.body,
  state: t.state,
  priority: t.priority || null,
  deadline: t.deadline,
  scheduled: t.scheduled,
  tags: t.tags,
  notes: t.notes,
  created_at: t.createdAt.toISOString(),
  completed_at: t.completedAt?.toISOString() ?? null,
});

export function inboxActions(d: ActionDeps): ActionHandler[] {
  const sendNotification: ActionHandler = {
    name: 'send_notification',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(z.object({ message: z.string().min(1).max(10_000) }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({
          title: z.string().max(200).default('Notification'),
          priority: z.enum(['low', 'normal', 'high', 'urgent']).default('normal'),
          action_url: z.string().max(2000).optional(),
          action_label: z.string().max(100).optional(),
        }),
        ctx.params,
        'params',
      );
      const owner = ctx.principal.userId;
      const { details } = await d.deliveries.once(actionKey(ctx), owner, 'notification', async (q) => {
        const n = await d.inbox.notify(
          {
            owner,
            title: p.title,
            message: i.message,
            priority: p.priority,
            ...(p.action_url ? { actionUrl: p.action_url } : {}),
            ...(p.action_label ? { actionLabel: p.action_label } : {}),
            origin: originOf(ctx),
          },
          q,
        );
        return { notification_id: n.id };
      });
      return { notification_id: details.notification_id, success: true };
    },
  };

  const broadcast: ActionHandler = {
    name: 'broadcast_to_team',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(
        z.object({ message: z.string().min(1).max(10_000), team_id: z.string().min(1) }),
        ctx.inputs,
        'inputs',
      );
      const p = parse(z.object({ channel: z.string().optional() }), ctx.params, 'params');
      memberOf(ctx, i.team_id, 'inputs.team_id');
      if (p.channel && p.channel !== 'preferred' && p.channel !== 'in_app')
        throw new AppError(
          'FAILED_PRECONDITION',
          `params.channel: channel ${p.channel} is not available (in_app only)`,
          { violations: [{ field: 'params.channel', reason: 'not available' }] },
        );
      // The broadcast is a team post every member sees (team membership lives in the gateway; the post is what they all read).
      const { details } = await d.deliveries.once(
        actionKey(ctx),
        ctx.principal.userId,
        'team_post',
        async (q) => {
          const post = await d.inbox.post(
            { teamId: i.team_id, author: ctx.principal.userId, content: i.message, format: 'markdown' },
            q,
          );
          return { post_id: post!.id };
        },
      );
      return { delivered_to: 1, failures: 0, success: true, post_id: details.post_id };
    },
  };

  const writePost: ActionHandler = {
    name: 'write_team_post',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(
        z.object({ content: z.string().min(1).max(50_000), team_id: z.string().min(1) }),
        ctx.inputs,
        'inputs',
      );
      const p = parse(
        z.object({
          thread_id: z.string().optional(),
          format: z.enum(['markdown', 'plain']).default('markdown'),
        }),
        ctx.params,
        'params',
      );
      memberOf(ctx, i.team_id, 'inputs.team_id');
      const { details } = await d.deliveries.once(
        actionKey(ctx),
        ctx.principal.userId,
        'team_post',
        async (q) => {
          const post = await d.inbox.post(
            {
              teamId: i.team_id,
              ...(p.thread_id ? { threadId: p.thread_id } : {}),
              author: ctx.principal.userId,
              content: i.content,
              format: p.format,
            },
            q,
          );
          if (!post)
            throw new AppError('NOT_FOUND', `params.thread_id: thread ${p.thread_id} not found`, {
              violations: [{ field: 'params.thread_id', reason: 'not found' }],
            });
          return { post_id: post.id, thread_id: post.threadId };
        },
      );
      return { ...details, success: true };
    },
  };

  const searchPosts: ActionHandler = {
    name: 'search_team_posts',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ query: z.string(), team_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({
          date_from: date.optional(),
          date_to: date.optional(),
          author: z.string().optional(),
          max_results: z.number().int().min(1).max(200).default(20),
        }),
        ctx.params,
        'params',
      );
      memberOf(ctx, i.team_id, 'inputs.team_id');
      const posts = await d.inbox.posts(i.team_id, {
        query: i.query,
        ...(p.author ? { author: p.author } : {}),
        ...(p.date_from ? { from: p.date_from } : {}),
        ...(p.date_to ? { to: p.date_to } : {}),
        limit: p.max_results,
      });
      const view = posts.map((x) => ({
        post_id: x.id,
        thread_id: x.threadId,
        author: x.author,
        content_preview: x.content.slice(0, 280),
        created_at: x.createdAt.toISOString(),
        reply_count: x.replyCount ?? 0,
      }));
      return { posts: view, count: view.length };
    },
  };

  const createTodo: ActionHandler = {
    name: 'create_todo',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(NewTodoInputs, ctx.inputs, 'inputs');
      const p = parse(NewTodoParams, ctx.params, 'params');
      const owner = ctx.principal.userId;
      const { details } = await d.deliveries.once(actionKey(ctx), owner, 'todo', async (q) => ({
        todo_id: (await createTodoOf(d.inbox, owner, i, p, q)).id,
      }));
      return { success: true, todo_id: details.todo_id, file_path: p.target_file };
    },
  };

  const listTodos: ActionHandler = {
    name: 'list_todos',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ state: z.enum([...STATES, 'all']).default('all') }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({
          tags: z.array(z.string()).optional(),
          deadline_before: date.optional(),
          file_id: z.string().optional(),
          limit: z.number().int().min(1).max(1000).default(100),
        }),
        ctx.params,
        'params',
      );
      const todos = await d.inbox.todos(ctx.principal.userId, {
        ...(i.state !== 'all' ? { states: [i.state] } : {}),
        ...(p.tags ? { tags: p.tags } : {}),
        ...(p.deadline_before ? { deadlineBefore: p.deadline_before } : {}),
        limit: p.limit,
      });
      return { todos: todos.map(todoView), count: todos.length };
    },
  };

  const searchTodos: ActionHandler = {
    name: 'search_todos',
    sideEffects: false,
    async execute(ctx) {
      const i = parse(z.object({ query: z.string() }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({ states: z.array(z.enum(STATES)).optional(), include_done: z.boolean().default(false) }),
        ctx.params,
        'params',
      );
      const states = p.states ?? (p.include_done ? [] : ['TODO', 'NEXT', 'WAITING']);
      const todos = await d.inbox.todos(ctx.principal.userId, { states, query: i.query, limit: 200 });
      return { todos: todos.map(todoView), count: todos.length };
    },
  };

  const updateTodo: ActionHandler = {
    name: 'update_todo',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(z.object({ todo_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(TodoPatch, ctx.params, 'params');
      const t = await todoOrFail(d.inbox, ctx.principal.userId, i.todo_id, 'inputs.todo_id');
      const updated = applyTodoPatch(t, p);
      // The update and its delivery record commit together: a replayed update (another attempt) does not add its note twice.
      const { replayed } = await d.deliveries.once(
        actionKey(ctx),
        ctx.principal.userId,
        'todo',
        async (q) => {
          if (p.add_note !== undefined) {
            addTodoNote(t, p.add_note);
            updated.push('notes');
          }
          await d.inbox.saveTodo(ctx.principal.userId, t, q);
          return { todo_id: t.id };
        },
      );
      if (replayed && p.add_note !== undefined) updated.push('notes');
      return { success: true, updated_fields: updated };
    },
  };

  const completeTodo: ActionHandler = {
    name: 'complete_todo',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(z.object({ todo_id: z.string().min(1) }), ctx.inputs, 'inputs');
      const p = parse(z.object({ completion_note: z.string().max(10_000).optional() }), ctx.params, 'params');
      const t = await todoOrFail(d.inbox, ctx.principal.userId, i.todo_id, 'inputs.todo_id');
      if (completeTodoOf(t, p.completion_note)) await d.inbox.saveTodo(ctx.principal.userId, t);
      return { success: true, completed_at: t.completedAt!.toISOString() };
    },
  };

  return [
    sendNotification,
    broadcast,
    writePost,
    searchPosts,
    createTodo,
    listTodos,
    searchTodos,
    updateTodo,
    completeTodo,
  ];
}
