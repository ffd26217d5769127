/** The agent run, chat and journal routes in the API document (/api/docs). */
import * as R from '../http/responses/index.js';
import type { RouteDoc } from '../http/responses/document.js';
import { ChatSchema, JOURNAL_QUERY_HELP, JournalQuery, ProfileRunsQuery, ProfileTestSchema } from './agents.schemas.js';

const PROFILES = '/api/agent-factory/profiles';

export const AGENT_ROUTES: RouteDoc[] = [
  {
    method: 'post',
    path: '/api/async/orchestrator/stream',
    idempotent: true,
    frames: R.ChatFrame,
    status: '200',
    tag: 'Profiles',
    summary:
      'Chat with an agent ({message: "@handle …", conversation_id?, agent_profile_id?, inputs?}): streams the chosen strategy, a clarify question or the run and its frames, the journal entry, the final answer and done {conversation_id}. An unknown @handle is 404 listing the closest handles; research / direct without a model answer a clear error',
    body: ChatSchema,
    errors: { '404': 'No agent with that handle is yours or shared with your teams (the message lists close handles), or the conversation is not yours' },
  },
  {
    method: 'post',
    path: `${PROFILES}/{id}/test`,
    idempotent: true,
    response: R.ProfileTestAnswer,
    status: '200',
    tag: 'Profiles',
    summary: 'Run a query against the profile ({query, inputs?}): the strategy chosen, the run (once it ended, or as it is after two minutes), its journal entry and answer; a missing required input answers clarify with no run',
    body: ProfileTestSchema,
    errors: { '409': 'The strategy needs a chat model and none is configured, or the profile cannot answer (e.g. research with no connector bound)' },
  },
  { method: 'get', path: `${PROFILES}/{id}/runs`, response: R.ProfileRunList, query: ProfileRunsQuery, tag: 'Profiles', summary: 'Your runs of the agent, newest first (agent_profile_id, invoked_by, team_id, connectors_called, entities_discovered, outputs_produced)' },
  {
    method: 'get',
    path: `${PROFILES}/{id}/journal`,
    response: R.JournalList,
    query: JournalQuery,
    queryHelp: JOURNAL_QUERY_HELP,
    tag: 'Profiles',
    summary: 'The agent\'s journal, newest first, paginated, filtered by task_status, entity and date; team members see entries per the share\'s journal_visibility',
  },
  { method: 'get', path: `${PROFILES}/{id}/journal/summary`, response: R.JournalSummary, tag: 'Profiles', summary: 'Recent activity for a sidebar: counts by task status, the last entry, the entities most mentioned' },
  { method: 'get', path: '/api/agent-factory/journal/{entry_id}', response: R.JournalEntryAnswer, tag: 'Profiles', summary: 'One journal entry you may see (404 otherwise)' },
];
