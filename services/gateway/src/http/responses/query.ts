/** Answers of POST /query, POST /query/stream and GET /query/memory. */
import { z } from 'zod';
import { component, JsonObject, timestamp } from './common.js';

export const QueryMemory = component(
  'QueryMemory',
  z.strictObject({
    critical_facts: z.strictObject({ user_name: z.string().optional(), company_name: z.string().optional(), job_title: z.string().optional(), recent_projects: z.array(z.string()).optional() }),
    preferences: z.strictObject({ tone: z.string().optional(), detail_level: z.string().optional(), language: z.string().optional() }),
  }),
  { description: "The user's long-term memory, extracted from their questions and used in every plan" },
);

export const QuerySource = component(
  'QuerySource',
  z.strictObject({
    n: z.number().int().meta({ description: 'The number the answer cites as [n]' }),
    type: z.enum(['document', 'web']),
    agent_id: z.string(),
    source: z.string().meta({ description: 'File name or page title' }),
    document_id: z.string().optional(),
    chunk_id: z.string().optional(),
    page: z.number().nullable().optional(),
    section: z.string().nullable().optional(),
    url: z.string().optional(),
    excerpt: z.string(),
  }),
);

const NotDone = z.strictObject({ agent_id: z.string(), agent_name: z.string(), task: z.string(), reason: z.string(), tools: z.array(z.string()) });
const Citation = z.strictObject({ n: z.number().int(), chunk_id: z.string().nullable(), document_id: z.string().nullable(), url: z.string().nullable() });

export const QueryPlanView = component(
  'QueryPlan',
  z.strictObject({
    query_id: z.string(),
    conversation_id: z.string(),
    session_id: z.string(),
    run_id: z.string(),
    analysis: JsonObject,
    execution_plan: z.array(JsonObject).meta({ description: 'The agents as the master agent planned them: agent_id, agent_name, task, entities, tools, depends_on, hitl_tools' }),
    stages: z.array(z.array(z.string())).meta({ description: 'Node ids by Kahn level: nodes of one stage run in parallel' }),
    memory: JsonObject,
    replayed: z.boolean().meta({ description: 'true: an earlier request with the same Idempotency-Key planned this query; nothing was planned or started again' }),
  }),
);

export const QueryAnswer = z.strictObject({
  query_id: z.string(),
  run_id: z.string(),
  answer: z.string().meta({ description: 'The composed answer; [n] cites sources[n-1]' }),
  sources: z.array(QuerySource),
  citations: z.array(Citation).meta({ description: 'The sources the answer cites, in the order first cited' }),
  invalid_citations: z.array(z.number()).meta({ description: 'Numbers the model cited that name no source (removed from the answer)' }),
  not_done: z.array(NotDone).meta({ description: 'Agents that did not do their task and why (denied_by_user, hitl_timeout, hitl_skipped_non_streaming, an error); the answer explains each' }),
  conversation_id: z.string(),
  session_id: z.string(),
  memory: QueryMemory,
  plan: QueryPlanView,
});

export const QueryMemoryAnswer = z.strictObject({ memory: QueryMemory });

const queryFrame = <T extends string>(type: T, payload: z.ZodType, description: string) =>
  component(`QueryFrame_${type}`, z.strictObject({ type: z.literal(type), id: z.string(), timestamp, payload, runId: z.string(), nodeId: z.string().optional() }), { description });

export const QueryFrame = component(
  'QueryFrame',
  z.union([
    queryFrame('plan', QueryPlanView, 'The plan: analysis, agents, stages, the memory it was made with (first event)'),
    queryFrame('hitl_required', JsonObject, 'An agent waits for approval: {request_id, agent_id, agent_name, tool_names, task_description, timeout_seconds}; answer with POST /hitl/respond'),
    queryFrame('hitl_approved', JsonObject, '{request_id, agent_id}'),
    queryFrame('hitl_denied', JsonObject, '{request_id, agent_id}'),
    queryFrame('hitl_timeout', JsonObject, '{request_id, agent_id}'),
    queryFrame('sources', z.strictObject({ sources: z.array(QuerySource), citations: z.array(Citation) }), 'The numbered sources and those the answer cites'),
    queryFrame('token', z.strictObject({ text: z.string() }), 'The next piece of the answer, as the composer writes it (several per answer; joined they are the answer, citations of unknown sources already removed)'),
    queryFrame('answer', z.strictObject({ text: z.string() }), 'Only when the checks changed text already sent as tokens: the whole corrected answer, shown instead of the tokens'),
    queryFrame('done', JsonObject, '{query_id, conversation_id, session_id, run_id, not_done, invalid_citations, memory}: the stream ends'),
    queryFrame('error', z.strictObject({ message: z.string(), code: z.string() }), 'No answer could be composed (e.g. the model failed mid-answer: the message names the cause); the stream ends'),
    component('QueryFrame_run_event', z.strictObject({ type: z.string(), id: z.string(), timestamp, payload: JsonObject, runId: z.string(), nodeId: z.string().optional() }), {
      description: 'A frame of the run (node_start, node_complete, node_error, log, complete, …) as GET /api/v1/runs/{id}/events streams it',
    }),
  ]),
  { description: 'One Server-Sent Event of the query stream' },
);
