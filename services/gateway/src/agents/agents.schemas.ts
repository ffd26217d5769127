/** Request bodies and queries of the agent run, chat and journal routes. */
import { z } from 'zod';

const inputs = z.record(z.string(), z.unknown()).describe('Playbook inputs given explicitly (they win over those extracted from the message)');

/** POST /api/async/orchestrator/stream. */
export const ChatSchema = z.strictObject({
  message: z.string().min(1).max(20_000).describe('The chat message; starts with @handle unless agent_profile_id is given'),
  conversation_id: z.string().min(1).max(100).optional().describe('A conversation of yours: the messages are added to it, and research / direct answers read its history'),
  agent_profile_id: z.string().min(1).max(200).optional().describe('The agent, when the message has no @mention (the sidebar Run button)'),
  inputs: inputs.optional(),
});

/** POST /api/agent-factory/profiles/{id}/test. */
export const ProfileTestSchema = z.strictObject({
  query: z.string().min(1).max(20_000).describe('What to ask the agent (no @mention)'),
  inputs: inputs.optional(),
});

const TASK_STATUSES = ['complete', 'partial', 'error', 'awaiting_approval'] as const;

export const JournalQuery = z.strictObject({
  page_size: z.coerce.number().int().min(1).max(200).optional(),
  page_token: z.string().max(500).optional(),
  task_status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((x) => x.trim()) : []))
    .pipe(z.array(z.enum(TASK_STATUSES))),
  entity: z.string().max(200).optional(),
  date_from: z.string().max(40).optional(),
  date_to: z.string().max(40).optional(),
});

export const JOURNAL_QUERY_HELP = {
  task_status: `Comma-separated: ${TASK_STATUSES.join(', ')}`,
  entity: 'Only entries mentioning an entity whose name contains this (case-insensitive)',
  date_from: 'From this ISO date or timestamp (a date: from its start)',
  date_to: 'Up to this ISO date or timestamp (a date: to its end)',
  page_size: 'At most this many (1–200, default 20)',
  page_token: 'next_page_token of the previous page',
};

export const ProfileRunsQuery = z.strictObject({
  page_size: z.coerce.number().int().min(1).max(200).optional(),
  page_token: z.string().max(500).optional(),
});
