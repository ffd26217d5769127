/**
 * Todos of one owner: the use cases behind the create_todo / update_todo /
 * complete_todo actions and the workspace's todo routes (one implementation
 * for both). Another owner's todo is NOT_FOUND.
 */
import { AppError, type Queryable } from '@af/service-kit';
import { z } from 'zod';
import type { InboxRepository, Todo } from '../infra/inbox.repository.js';

export const todoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}/, 'must be a date (YYYY-MM-DD)')
  .refine((s) => {
    const d = new Date(`${s.slice(0, 10)}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s.slice(0, 10);
  }, 'must be a real date (YYYY-MM-DD)')
  .transform((s) => s.slice(0, 10));
export const TODO_STATES = ['TODO', 'NEXT', 'WAITING', 'DONE'] as const;

/** What a new todo is made of (create_todo's inputs). */
export const NewTodoInputs = z.object({
  title: z.string().min(1).max(500),
  body: z.string().max(50_000).default(''),
});
/** create_todo's params. */
export const NewTodoParams = z.object({
  priority: z.enum(['A', 'B', 'C']).optional(),
  state: z.enum(['TODO', 'NEXT', 'WAITING']).default('TODO'),
  deadline: todoDate.optional(),
  scheduled: todoDate.optional(),
  tags: z.array(z.string().min(1).max(100)).max(50).default([]),
  target_file: z.string().max(500).default(''),
});

/** A change of a todo (update_todo's params); unset fields stay as they are. */
export const TodoPatch = z.strictObject({
  state: z.enum(TODO_STATES).optional(),
  priority: z.enum(['A', 'B', 'C', '']).optional(),
  deadline: todoDate.optional(),
  scheduled: todoDate.optional(),
  add_tags: z.array(z.string().min(1)).optional(),
  remove_tags: z.array(z.string()).optional(),
  add_note: z.string().max(10_000).optional(),
});
export type TodoPatch = z.infer<typeof TodoPatch>;

export function createTodo(
  inbox: InboxRepository,
  owner: string,
  i: z.infer<typeof NewTodoInputs>,
  p: z.infer<typeof NewTodoParams>,
  q?: Queryable,
): Promise<Todo> {
  return inbox.createTodo(
    {
      owner,
      title: i.title,
      body: i.body,
      state: p.state,
      priority: p.priority ?? '',
      deadline: p.deadline ?? null,
      scheduled: p.scheduled ?? null,
      tags: p.tags,
      targetFile: p.target_file,
    },
    q,
  );
}

/** The owner's todo `id`, else NOT_FOUND naming `field`. */
export async function todoOrFail(inbox: InboxRepository, owner: string, id: string, field: string): Promise<Todo> {
  const t = await inbox.todo(owner, id);
  if (!t)
    throw new AppError('NOT_FOUND', `todo ${id} not found`, { violations: [{ field, reason: 'not found' }] });
  return t;
}

/**
 * Applies a patch to `t` except its note (see addNote): returns the names of
 * the fields it set. State DONE completes the todo (keeping an earlier
 * completion time); any other state reopens it.
 */
export function applyTodoPatch(t: Todo, p: TodoPatch): string[] {
  const updated: string[] = [];
  if (p.state !== undefined) {
    t.state = p.state;
    t.completedAt = p.state === 'DONE' ? (t.completedAt ?? new Date()) : null;
    updated.push('state');
  }
  if (p.priority !== undefined) {
    t.priority = p.priority;
    updated.push('priority');
  }
  if (p.deadline !== undefined) {
    t.deadline = p.deadline;
    updated.push('deadline');
  }
  if (p.scheduled !== undefined) {
    t.scheduled = p.scheduled;
    updated.push('scheduled');
  }
  if (p.add_tags || p.remove_tags) {
    t.tags = [...new Set([...t.tags, ...(p.add_tags ?? [])])].filter((x) => !(p.remove_tags ?? []).includes(x));
    updated.push('tags');
  }
  return updated;
}

export function addTodoNote(t: Todo, note: string): void {
  t.notes = [...t.notes, note];
}

/** Marks `t` done (with an optional note); false when it already was. */
export function completeTodo(t: Todo, note?: string): boolean {
  if (t.state === 'DONE') return false;
  t.state = 'DONE';
  t.completedAt = new Date();
  if (note) addTodoNote(t, note);
  return true;
}

/** The whole update of one todo outside a run (the workspace route): patch, note, save. */
export async function updateTodo(
  inbox: InboxRepository,
  owner: string,
  id: string,
  p: TodoPatch,
  field: string,
): Promise<{ todo: Todo; updated: string[] }> {
  const t = await todoOrFail(inbox, owner, id, field);
  const updated = applyTodoPatch(t, p);
  if (p.add_note !== undefined) {
    addTodoNote(t, p.add_note);
    updated.push('notes');
  }
  return { todo: updated.length ? await inbox.saveTodo(owner, t) : t, updated };
}
