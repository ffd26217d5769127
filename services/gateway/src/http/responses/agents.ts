/** Answers of the agent run, chat and journal routes (profiles/{id}/test, profiles/{id}/runs, journal, orchestrator/stream). */
import { z } from 'zod';
import { component, JsonObject, timestamp } from './common.js';
import { Run, RunSummary } from './runs.js';

export const JournalEntry = component(
  'JournalEntry',
  z.strictObject({
    id: z.string(),
    agent_profile_id: z.string(),
    run_id: z.string().nullable(),
    summary: z.string(),
    summary_source: z.enum(['engine', 'llm', 'action']).meta({ description: 'Who wrote the summary: the engine, the model, or a write_journal_entry step' }),
    detail_entries: z.array(JsonObject).meta({ description: 'Per step: {step, action, status, result}' }),
    run_context: z.string(),
    invoked_by: z.string(),
    team_id: z.string().nullable(),
    strategy: z.string().nullable(),
    playbook_id: z.string().nullable(),
    entities_mentioned: z.array(z.string()),
    steps_completed: z.number().int(),
    entities_discovered: z.number().int(),
    outputs_produced: z.array(JsonObject),
    connectors_called: z.array(JsonObject),
    task_status: z.enum(['complete', 'partial', 'error', 'awaiting_approval']),
    error_summary: z.string().nullable(),
    created_at: timestamp,
  }),
  { description: 'What one agent run did' },
);

export const JournalEntryAnswer = z.strictObject({ entry: JournalEntry });
export const JournalList = z.strictObject({ entries: z.array(JournalEntry), next_page_token: z.string().nullable() });
export const JournalSummary = z.strictObject({
  summary: z.strictObject({
    agent_profile_id: z.string(),
    entries_considered: z.number().int(),
    by_task_status: z.record(z.string(), z.number().int()),
    last_entry: JournalEntry.nullable(),
    last_run_at: timestamp.nullable(),
    top_entities: z.array(z.strictObject({ name: z.string(), count: z.number().int() })),
  }),
});

const Selection = z.strictObject({
  agent_profile_id: z.string(),
  handle: z.string(),
  strategy: z.string().meta({ description: 'playbook | pipeline | research | direct' }),
  playbook_id: z.string().nullable(),
  reason: z.string(),
  notes: z.array(z.string()),
  inputs: JsonObject,
  extracted: z.array(JsonObject),
});

export const ProfileTestAnswer = z.strictObject({
  selection: Selection,
  clarify: JsonObject.nullable().meta({ description: 'A required input the query did not give: the question to answer (no run then)' }),
  run: Run.nullable(),
  answer: z.string().nullable(),
  journal_entry: JournalEntry.nullable(),
});

export const ProfileRunList = z.strictObject({ runs: z.array(RunSummary), next_page_token: z.string().nullable() });

const chatFrame = <T extends string>(type: T, payload: z.ZodType, description: string) =>
  component(
    `ChatFrame_${type}`,
    z.strictObject({ type: z.literal(type), id: z.string(), timestamp, payload, runId: z.string().optional(), nodeId: z.string().optional() }),
    { description },
  );

export const ChatFrame = component(
  'ChatFrame',
  z.union([
    chatFrame('strategy', Selection, 'The agent addressed and how it answers (first frame)'),
    chatFrame('clarify', JsonObject, 'A required input is missing: the question to answer (no run)'),
    chatFrame('run', z.strictObject({ run_id: z.string() }), 'The run started'),
    chatFrame('answer', z.strictObject({ text: z.string(), error: z.boolean(), run_id: z.string().nullable() }), 'The final answer (or the clear error why there is none)'),
    chatFrame('journal', JsonObject, 'The journal entry written for the run'),
    chatFrame('done', z.strictObject({ conversation_id: z.string() }), 'The stream ends'),
    component('ChatFrame_run_event', z.strictObject({ type: z.string(), id: z.string(), timestamp, payload: JsonObject, runId: z.string().optional(), nodeId: z.string().optional() }), {
      description: 'A frame of the run (node_start, node_complete, log, hitl_request, complete, …) as GET /api/v1/runs/{id}/events streams it',
    }),
  ]),
  { description: 'One Server-Sent Event of the chat stream' },
);
