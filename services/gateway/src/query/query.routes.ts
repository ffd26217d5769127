/** The master-agent query routes in the API document (/api/docs). */
import * as R from '../http/responses/index.js';
import type { RouteDoc } from '../http/responses/document.js';
import { QuerySchema } from './query.schemas.js';

const KEY_REUSED = 'Idempotency-Key already used with a different request (violation field Idempotency-Key, code idempotency_key_reused), or its first request is still being planned (idempotency_key_in_progress)';
const NO_MODEL = 'No chat model is configured (LLM_PROVIDER is none): nothing is planned and no answer is made up; or the master agent\'s plan was rejected twice (violations name master_plan fields)';

export const QUERY_ROUTES: RouteDoc[] = [
  {
    method: 'post',
    path: '/query',
    response: R.QueryAnswer,
    status: '200',
    tag: 'Query',
    summary:
      'Ask a question ({query, conversation_id?, session_id?}): the master agent plans agents (rag_agent, web_agent, mail_agent, summary_agent) with depends_on, the orchestrator runs them in parallel stages, the composer answers with [n] citations of the numbered sources. Agents that need an approval are skipped here (hitl_skipped_non_streaming) and the answer says so',
    body: QuerySchema,
    idempotent: true,
    errors: { '404': 'The conversation or session is not yours', '409': `${NO_MODEL}; or ${KEY_REUSED}` },
  },
  {
    method: 'post',
    path: '/query/stream',
    frames: R.QueryFrame,
    status: '200',
    tag: 'Query',
    summary:
      'The same as POST /query, streamed: plan, the run\'s frames (hitl_required / hitl_approved / hitl_denied / hitl_timeout for approvals, answered with POST /hitl/respond), token events as the composer writes the answer, answer (only when the checks changed text already sent), sources, done; error when the model fails mid-answer. Leaving during the answer stops the model',
    body: QuerySchema,
    idempotent: true,
    errors: { '404': 'The conversation or session is not yours', '409': `${NO_MODEL}; or ${KEY_REUSED}` },
  },
  { method: 'get', path: '/query/memory', response: R.QueryMemoryAnswer, tag: 'Query', summary: 'Your long-term memory (critical_facts, preferences), as the memory extractor keeps it from your questions' },
];
