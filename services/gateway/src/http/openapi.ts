/**
 * The OpenAPI 3.1 document served at /api/docs/openapi.json (and /api/docs to
 * non-browser clients), built from the same zod schemas that parse the
 * requests and, in responses/, describe the answers. One ROUTES entry per
 * route: method, path, summary, request body and query schemas, the success
 * answer's schema (`response`, or `frames` for Server-Sent Events), statuses.
 * With OPENAPI_CHECK_RESPONSES=1 every JSON answer is checked against it
 * (response-check.middleware.ts).
 */
import { z } from 'zod';
import { DeregisterQuery, FlexJsonObjectSchema, HeartbeatBodySchema, ListCapabilitiesQuery, ListFacetsQuery, PlanQuery, UpsertFacetsSchema } from './flex.schemas.js';
import {
  BindConnectorSchema,
  CreateConnectorSchema,
  EnablePluginSchema,
  FromTemplateSchema,
  TestConnectorSchema,
  TestInlineConnectorSchema,
  UpdateConnectorSchema,
  ValidateConnectorSchema,
  DeleteAccountSchema,
  ListRunsQuery,
  RUN_STATUS_NAMES,
  TASK_STATUS_NAMES,
  LoginSchema,
  OAuthCallbackQuery,
  ReplanRunSchema, PlaybookYamlSchema, RegisterSchema, StreamTokenSchema, ResumeRunSchema, StartRunSchema, TestPlaybookSchema, ValidateStoredPlaybookSchema } from './schemas.js';
import { AddMemberSchema, CreateTeamSchema, InviteSchema } from './teams.schemas.js';
import { CreateApiKeySchema } from '../domain/api-keys.js';
import { ApproveSchema, DeclineTaskSchema, HitlRespondSchema, HitlResolveSchema, ListApprovalsQuery, ListTasksQuery, RejectSchema, REQUEST_KIND_NAMES, REQUEST_STATUS_NAMES, RunResumeSchema } from './approval.schemas.js';
import * as R from './responses/index.js';
import { buildOpenApiDocument, type RouteDoc } from './responses/document.js';
import { WORKSPACE_ROUTES } from '../workspace/workspace.openapi.js';
import { AttachPlaybookSchema, ProfileBodySchema, ProfileOverridesSchema, ShareSchema, UpdateShareSchema } from './profiles.schemas.js';
import { ENTITY_RESOLUTION_ROUTES } from '../entity-resolution/entity-resolution.routes.js';
import { SCHEDULE_ROUTES } from '../schedules/schedule.routes.js';
import { AGENT_ROUTES } from '../agents/agents.routes.js';
import { QUERY_ROUTES } from '../query/query.routes.js';
import { DOCUMENT_ROUTES } from '../documents/documents.routes.js';

export type { RouteDoc };

/** Query parameters read one by one in the controllers (@Query('name')), documented here. */
const CategoryQuery = z.object({ category: z.string().optional().meta({ description: 'Only this category' }) });
const ConnectorListQuery = z.object({ include: z.enum(['templates']).optional().meta({ description: '`templates` adds the system templates' }) });
const BindingsQuery = z.object({ agent_profile_id: z.string().optional().meta({ description: 'Only the bindings of this agent profile' }) });
const RevisionQuery = z.object({ revision: z.coerce.number().int().min(1).optional().meta({ description: 'A stored version (default: the latest)' }) });
const RunEventsQuery = z.object({
  lastEventId: z.string().optional().meta({ description: 'Resume after this frame id (as the Last-Event-ID header)' }),
  stream_token: z.string().optional().meta({ description: 'A token from POST /api/auth/stream-token, for an EventSource that cannot send Authorization' }),
});

const PAGING_HELP = { page_size: 'At most this many (1–200)', page_token: 'next_page_token of the previous page' };
const RUN_LIST_HELP = {
  status: `Comma-separated run statuses: ${RUN_STATUS_NAMES.join(', ')}`,
  task_status: `Comma-separated task statuses: ${TASK_STATUS_NAMES.join(', ')}`,
  agent_profile_id: 'Only runs of this agent profile (one you may see; 404 otherwise)',
  playbook_id: 'Only runs started from this playbook (by its id: a stored playbook, or YAML with that id)',
  ...PAGING_HELP,
};
const APPROVAL_LIST_HELP = {
  kind: `Comma-separated kinds (${REQUEST_KIND_NAMES.join(', ')}), or all; default: all but human_task`,
  status: `Comma-separated statuses (${REQUEST_STATUS_NAMES.join(', ')}), or all; default: pending`,
  run_id: 'Only the requests of this run',
  ...PAGING_HELP,
};
const TASK_LIST_HELP = { capabilityId: 'Only tasks of this capability', status: APPROVAL_LIST_HELP.status, runId: 'Only the tasks of this run', ...PAGING_HELP };
const CAPABILITY_LIST_HELP = { include_inactive: 'true: also inactive capabilities', catalog_tag: 'Only capabilities with this catalog tag', produces: 'Only capabilities producing this facet' };

const TEAM_CHANGE_ERRORS = {
  '403': 'You are a member of the team but not an owner',
  '409': 'The team\'s last owner cannot be removed or demoted',
};

export const ROUTES: RouteDoc[] = [
  { method: 'post', path: '/api/auth/register', response: R.Registered, status: '201', summary: 'Create an account (common, simple or over-72-byte passwords are refused); with invite_token the account joins the inviting team. SIGNUP=invite needs an invite_token, SIGNUP=closed refuses every registration (403)', body: RegisterSchema, public: true,
    errors: { '403': 'Registration is closed, or needs an invitation (SIGNUP)', '409': 'The email is already registered', '429': 'Too many password checks in progress from this client address (Retry-After)', '503': 'Password checking is busy (Retry-After)' } },
  { method: 'post', path: '/api/auth/login', response: R.LoginAnswer, summary: 'Exchange email and password for a bearer token', body: LoginSchema, public: true,
    errors: { '401': 'Email or password is wrong', '429': 'Too many failed attempts for the account or from the client address (code too_many_attempts, Retry-After)', '503': 'Password checking is busy (Retry-After)' } },
  { method: 'get', path: '/api/auth/signup', response: R.SignupAnswer, summary: 'Who may register here (SIGNUP): open, invite (with a team invitation\'s invite_token) or closed', public: true },
  { method: 'post', path: '/api/auth/stream-token', response: R.StreamTokenAnswer, summary: 'A short-lived token for one Server-Sent Events route (body {path}, e.g. /api/v1/runs/{id}/events), for a browser\'s EventSource: open <path>?stream_token=<token>', body: StreamTokenSchema, status: '201' },
  { method: 'post', path: '/api/auth/logout-all', summary: 'Revoke every token of your account, this one included', status: '204' },
  { method: 'delete', path: '/api/auth/me', summary: 'Delete your account; body {password} confirms it', body: DeleteAccountSchema, status: '204',
    errors: { '403': 'The password is wrong', '409': 'A team you created or solely own still has other members', '429': 'Too many failed attempts (Retry-After)' } },
  { method: 'post', path: '/api/v1/runs', idempotent: true, response: R.RunAnswer, summary: 'Start a run from exactly one of yaml (playbook YAML; its deprecated name `playbook` is still taken, with Deprecation, Warning and Link headers), playbook_id (+ playbook_revision), workflow_steps or plan (a PlanGraph); 400 names the field (workflow_steps[1].dependencies[0], plan.nodes[0].dependsOn for a cycle, unknown fields)', body: StartRunSchema },
  { method: 'get', path: '/api/v1/runs', response: R.RunList, query: ListRunsQuery, queryHelp: RUN_LIST_HELP, summary: 'Your runs, newest first (?status=a,b&page_size=&page_token=)' },
  { method: 'get', path: '/api/v1/runs/{id}', response: R.RunAnswer, summary: 'Run status, node states and outputs' },
  { method: 'post', path: '/api/v1/runs/{id}/pause', response: R.RunAnswer, summary: 'Pause a run' },
  { method: 'post', path: '/api/v1/runs/{id}/resume', response: R.RunAnswer, summary: 'Resume a paused run or decide a waiting approval', body: ResumeRunSchema },
  { method: 'get', path: '/api/agent-factory/executions', response: R.RunList, query: ListRunsQuery, queryHelp: RUN_LIST_HELP, summary: 'Executions (runs), as in the seed API' },
  { method: 'get', path: '/api/agent-factory/executions/{id}', response: R.ExecutionAnswer, summary: 'One execution' },
  { method: 'post', path: '/api/v1/runs/{id}/cancel', response: R.RunAnswer, summary: 'Cancel a run' },
  { method: 'post', path: '/api/v1/runs/{id}/replan', idempotent: true, response: R.RunAnswer, status: '200', summary: 'Replan an unfinished run: plan version N+1, completed steps locked; without yaml the playbook version the run started with is compiled again (`playbook` is the deprecated name of yaml)', body: ReplanRunSchema },
  { method: 'post', path: '/api/v1/runs/{id}/policies/{policyId}/trigger', idempotent: true, response: R.RunAnswer, status: '200', summary: 'Fire a runtime policy whose trigger is manual' },
  { method: 'get', path: '/api/v1/runs/{id}/events', frames: R.RunFrame, query: RunEventsQuery, summary: 'Run frames as Server-Sent Events; resume with Last-Event-ID' },
  { method: 'get', path: '/api/agent-factory/connectors', response: R.ConnectorList, query: ConnectorListQuery, summary: 'List your connectors' },
  { method: 'post', path: '/api/agent-factory/connectors', idempotent: true, response: R.ConnectorAnswer, summary: 'Create a connector from YAML', body: CreateConnectorSchema },
  { method: 'get', path: '/api/agent-factory/connectors/{id}', response: R.ConnectorAnswer, summary: 'Connector detail (credentials never returned)' },
  { method: 'delete', path: '/api/agent-factory/connectors/{id}', status: '204', summary: 'Delete a connector' },
  { method: 'put', path: '/api/agent-factory/connectors/{id}', response: R.ConnectorAnswer, summary: 'Replace a connector definition (credentials given are added or replaced)', body: UpdateConnectorSchema },
  { method: 'post', path: '/api/agent-factory/connectors/validate', response: R.ConnectorValidation, summary: 'Validate connector YAML without saving it', body: ValidateConnectorSchema },
  { method: 'post', path: '/api/agent-factory/connectors/{id}/validate', response: R.ConnectorValidation, summary: 'Validate a saved connector, or YAML for it', body: ValidateConnectorSchema },
  { method: 'post', path: '/api/agent-factory/connectors/test', response: R.ConnectorTest, status: '200', summary: 'Call an endpoint of an unsaved connector once; returns records and an inferred output_schema', body: TestInlineConnectorSchema },
  { method: 'post', path: '/api/agent-factory/connectors/{id}/test', response: R.ConnectorTest, status: '200', summary: 'Call an endpoint of a saved connector once; returns records and an inferred output_schema', body: TestConnectorSchema },
  { method: 'get', path: '/api/agent-factory/connectors/{id}/schema', response: R.ConnectorSchema, summary: 'Input and output JSON Schemas of every endpoint' },
  { method: 'get', path: '/api/agent-factory/connectors/templates', response: R.TemplateList, query: CategoryQuery, summary: 'System connector templates (?category=)' },
  { method: 'post', path: '/api/agent-factory/connectors/from-template/{template_id}', response: R.ConnectorAnswer, summary: 'Create a connector from a template (id: connector_id, else the template id); 409 naming connector_id when you already have that connector, unless overwrite: true replaces it', body: FromTemplateSchema },
  { method: 'get', path: '/api/agent-factory/connectors/bindings', response: R.BindingList, query: BindingsQuery, summary: 'Your connector bindings (?agent_profile_id=)' },
  { method: 'put', path: '/api/agent-factory/connectors/{id}/bindings/{profile_id}', response: R.BindingAnswer, summary: 'Bind a connector to an agent profile', body: BindConnectorSchema },
  { method: 'delete', path: '/api/agent-factory/connectors/{id}/bindings/{profile_id}', status: '204', summary: 'Remove a binding' },
  { method: 'get', path: '/api/agent-factory/connectors/{id}/oauth/auth-url', response: R.AuthUrlAnswer, summary: "Connect your own account to an oauth2 authorization_code connector: the provider's consent URL (PKCE; its state is good for 10 minutes, once)", errors: { '409': 'The connector is not an oauth2 authorization_code connector, or has no client_id stored (violation names the field)' } },
  { method: 'get', path: '/api/agent-factory/oauth/callback', response: R.UserConnectionAnswer, query: OAuthCallbackQuery, public: true, summary: 'Where the provider sends the user back (code and state, or error): stores the connection; a browser gets a page that tells its opener and closes', errors: { '400': 'The state is forged, altered, expired or already used, or the code is missing; nothing is stored', '409': 'The provider refused access (error=…); nothing is stored' } },
  { method: 'get', path: '/api/agent-factory/connections', response: R.UserConnectionList, summary: 'Your OAuth connections (tokens are never returned)' },
  { method: 'delete', path: '/api/agent-factory/connections/{id}', status: '204', summary: 'Remove one of your OAuth connections and its tokens' },
  { method: 'get', path: '/api/agent-factory/plugins', response: R.PluginList, summary: 'Registered connector plugins' },
  { method: 'get', path: '/api/agent-factory/plugins/{name}', response: R.PluginAnswer, summary: 'Plugin detail with tool I/O contracts' },
  { method: 'get', path: '/api/agent-factory/plugins/{name}/tools', response: R.ToolList, summary: 'Tools of a plugin with I/O contracts' },
  { method: 'post', path: '/api/agent-factory/plugins/{name}/enable', response: R.PluginAnswer, status: '200', summary: 'Enable a plugin for you with its config (stored encrypted)', body: EnablePluginSchema },
  { method: 'delete', path: '/api/agent-factory/plugins/{name}/enable', response: R.PluginAnswer, summary: 'Disable a plugin for you' },
  { method: 'post', path: '/api/agent-factory/plugins/{name}/test', response: R.PluginTest, status: '200', summary: 'Check the plugin is alive and enabled for you' },
  { method: 'get', path: '/api/agent-factory/playbooks', response: R.PlaybookList, summary: 'List your playbooks' },
  { method: 'post', path: '/api/agent-factory/playbooks', idempotent: true, response: R.PlaybookAnswer, summary: 'Store a playbook (revision 1; the same id again stores a new version)', body: PlaybookYamlSchema },
  { method: 'get', path: '/api/agent-factory/playbooks/{id}', response: R.PlaybookAnswer, query: RevisionQuery, summary: 'Playbook detail: the latest version, or ?revision=' },
  { method: 'put', path: '/api/agent-factory/playbooks/{id}', idempotent: true, response: R.PlaybookUpdate, summary: 'Store a new version (earlier ones are kept; runs keep the version they started with); the YAML id must be the path id; unchanged YAML answers changed: false', body: PlaybookYamlSchema },
  { method: 'delete', path: '/api/agent-factory/playbooks/{id}', summary: 'Delete a playbook and its versions', status: '204', errors: { '409': 'A schedule or agent profile still uses the playbook (each is named)' } },
  { method: 'get', path: '/api/agent-factory/playbooks/{id}/versions', response: R.PlaybookVersions, summary: 'Every stored version, newest first' },
  { method: 'post', path: '/api/agent-factory/playbooks/{id}/validate', response: R.PlaybookValidation, summary: 'Validate the stored playbook, or YAML meant to replace it (its id must be the path id); per-step results', body: ValidateStoredPlaybookSchema },
  { method: 'post', path: '/api/agent-factory/playbooks/{id}/test', idempotent: true, response: R.PlaybookTest, summary: 'Dry run with sample inputs: side-effecting steps are skipped (reason dry_run, would-be inputs on their node_complete frame) unless allow_side_effects: true; returns the run', body: TestPlaybookSchema },
  { method: 'get', path: '/api/agent-factory/playbooks/{id}/graph', response: R.PlaybookGraph, query: RevisionQuery, summary: 'Steps (kind, step type, action, side effect, output types), edges (dependencies, fallbacks, routes) and Kahn levels (?revision=)' },
  { method: 'get', path: '/api/agent-factory/actions', response: R.ActionList, query: CategoryQuery, summary: 'Action I/O registry (filter with ?category=): built-in actions and served plugin tools, each with available / served_by / owner' },
  { method: 'get', path: '/api/agent-factory/actions/{name}', response: R.ActionAnswer, summary: 'One action I/O contract' },
  { method: 'post', path: '/api/agent-factory/playbooks/validate', response: R.PlaybookValidation, summary: 'Validate playbook YAML: {valid, errors, warnings, results}, every issue with field, step, line, column and suggestedFix', body: PlaybookYamlSchema },
  { method: 'get', path: '/api/agent-factory/approvals', response: R.ApprovalList, query: ListApprovalsQuery, queryHelp: APPROVAL_LIST_HELP, summary: 'Pending approvals you may act on (?kind=&status=&run_id=; `all` lifts a filter)' },
  { method: 'get', path: '/api/agent-factory/approvals/{id}', response: R.ApprovalAnswer, summary: 'One approval request with its preview data and resolution' },
  { method: 'post', path: '/api/agent-factory/approvals/{id}/approve', idempotent: true, response: R.ApprovalAnswer, summary: 'Approve (optionally with instructions) and resume the run; 409 when no longer pending', body: ApproveSchema },
  { method: 'post', path: '/api/agent-factory/approvals/{id}/reject', idempotent: true, response: R.ApprovalAnswer, summary: 'Reject with an optional reason (stored and answered as `reason`; `instructions` is its deprecated name, still taken, with Deprecation, Warning and Link headers); the run stops or skips the step per on_reject; 409 when no longer pending', body: RejectSchema },
  { method: 'get', path: '/api/v1/flex/tasks', response: R.TaskList, query: ListTasksQuery, queryHelp: TASK_LIST_HELP, summary: 'Human tasks you may work on (?capabilityId=&status=&runId=)' },
  { method: 'post', path: '/api/v1/flex/tasks/{taskId}/decline', idempotent: true, response: R.TaskAnswer, summary: 'Decline a human task with a reason code (the run ends per policy)', body: DeclineTaskSchema },
  { method: 'post', path: '/api/v1/flex/hitl/resolve', idempotent: true, response: R.FlexRequestAnswer, summary: 'Record an operator decision (or a clarification answer); a reject may give `reason`, answered as resolution.reason; unknown fields are 400 with a did-you-mean', body: HitlResolveSchema },
  { method: 'post', path: '/api/v1/flex/run.resume', idempotent: true, response: R.RunResumeAnswer, status: '200', summary: 'Hand in what a run waits for: human task output, clarification answer or decision (a reject may give `reason`); unknown fields are 400 with a did-you-mean', body: RunResumeSchema },
  { method: 'post', path: '/api/v1/flex/capabilities/register', idempotent: true, response: R.CapabilityChange, status: ['201', '200'], summary: 'Register or update a capability of yours, or of a team of yours with teamId (flex §5.6.2 payload, validated field by field)', body: FlexJsonObjectSchema },
  { method: 'post', path: '/api/v1/flex/capabilities/{id}/heartbeat', response: R.CapabilityChange, status: '200', summary: 'Capability instance heartbeat (stale instances become inactive)', body: HeartbeatBodySchema },
  { method: 'delete', path: '/api/v1/flex/capabilities/{id}', response: R.CapabilityChange, query: DeregisterQuery, queryHelp: { instance_id: 'Deregister only this instance' }, summary: 'Deregister a capability (?instance= for one instance)' },
  { method: 'get', path: '/api/v1/flex/capabilities', response: R.CapabilityList, query: ListCapabilitiesQuery, queryHelp: CAPABILITY_LIST_HELP, summary: 'Capabilities you may use: yours, your teams\', the shared catalog (filters in the query)' },
  { method: 'get', path: '/api/v1/flex/capabilities/{id}', response: R.CapabilityAnswer, summary: 'One capability with its instances' },
  { method: 'get', path: '/api/v1/flex/facets', response: R.FacetList, query: ListFacetsQuery, queryHelp: { catalog_tag: 'Only facets with this catalog tag' }, summary: 'Your facet catalog: yours, your teams\', the shared catalog' },
  { method: 'post', path: '/api/v1/flex/facets', response: R.FacetList, status: '200', summary: 'Add or update facets of yours (or of a team of yours; the shared catalog is the operator\'s)', body: UpsertFacetsSchema },
  { method: 'post', path: '/api/v1/flex/plan', response: R.PlanResult, status: '200', query: PlanQuery, queryHelp: { planner: 'deterministic or llm (default: the deployment\'s)', max_attempts: 'Redrafts allowed (1–10)' }, summary: 'Plan a TaskEnvelope: a validated PlanGraph (IR form, enums by name: kind, runContext, …) with diagnostics (no run)', body: FlexJsonObjectSchema },
  { method: 'get', path: '/api/v1/flex/sandbox/metadata', response: R.SandboxMetadata, summary: 'Capabilities, facets and templates for the sandbox UI' },
  { method: 'post', path: '/api/v1/flex/run.stream', idempotent: true, frames: R.RunFrame, status: '200', summary: 'Plan a TaskEnvelope and run it; streams plan and run frames (SSE)', body: FlexJsonObjectSchema },
  { method: 'get', path: '/api/v1/flex/runs/{id}', response: R.FlexRunDebug, summary: 'A flex run with its plan and outputs' },
  { method: 'post', path: '/api/v1/teams', response: R.TeamAnswer, summary: 'Create a team; you become its owner', body: CreateTeamSchema },
  { method: 'get', path: '/api/v1/teams', response: R.TeamList, summary: 'Teams you are a member of, with your role' },
  { method: 'get', path: '/api/v1/teams/{id}', response: R.TeamAnswer, summary: 'A team and its members (members only; 404 otherwise)' },
  { method: 'post', path: '/api/v1/teams/{id}/members', response: R.MemberAnswer, status: ['201', '200'], summary: 'Owners: add a user by user_id or email (201), or change a member\'s role (200)', body: AddMemberSchema, errors: TEAM_CHANGE_ERRORS },
  { method: 'delete', path: '/api/v1/teams/{id}/members/{userId}', response: R.MemberRemoved, summary: 'Owners: remove a member (anyone may remove themself)', errors: TEAM_CHANGE_ERRORS },
  { method: 'post', path: '/api/v1/teams/{id}/invites', response: R.InviteCreated, summary: 'Owners: invite an email address without an account; the answer\'s invite_token (shown once) lets its holder register for that address and join the team', body: InviteSchema,
    errors: { '403': 'You are a member of the team but not an owner', '409': 'The address already has an account (add it as a member instead)' } },
  { method: 'get', path: '/api/v1/teams/{id}/invites', response: R.InviteList, summary: 'Owners: the team\'s invitations not used, revoked or expired', errors: { '403': 'You are a member of the team but not an owner' } },
  { method: 'delete', path: '/api/v1/teams/{id}/invites/{inviteId}', response: R.InviteRevoked, summary: 'Owners: revoke a pending invitation', errors: { '403': 'You are a member of the team but not an owner' } },
  { method: 'post', path: '/api/v1/api-keys', response: R.ApiKeyCreated, summary: 'Create an API key for a service ({name, team_id?, expires_in_days?}); the key is in this answer only (login token required)', body: CreateApiKeySchema, errors: { '403': 'API keys cannot create API keys' } },
  { method: 'get', path: '/api/v1/api-keys', response: R.ApiKeyList, summary: 'Your API keys (prefix, team, expiry, revocation, last use; never the key)' },
  { method: 'delete', path: '/api/v1/api-keys/{id}', response: R.ApiKeyAnswer, summary: 'Revoke an API key (effective on its next request)' },
  { method: 'post', path: '/api/v1/auth/service-token', response: R.ServiceToken, summary: 'Exchange an API key (X-API-Key or Bearer afk_…) for a short-lived principal token to send as af-principal-token gRPC metadata', errors: { '403': 'Only an API key can be exchanged' } },
  { method: 'post', path: '/hitl/respond', idempotent: true, response: R.HitlRespondAnswer, summary: 'Seed HITL response: {request_id, decision: approved|denied, instructions?}; 409 when already resolved', body: HitlRespondSchema },
  // Agent profiles (planner): owner-only, team members per share level; others 404.
  { method: 'post', path: '/api/agent-factory/profiles', response: R.ProfileAnswer, summary: 'Create an agent profile (name, handle unique among yours, strategy, knowledge / output / journal / team config, model settings, built-in skills); 400 names the field', body: ProfileBodySchema, errors: { '409': 'You already have an agent with this handle' } },
  { method: 'get', path: '/api/agent-factory/profiles', response: R.ProfileList, summary: 'Your agent profiles, then those shared with your teams (each with access, team_id and permissions)' },
  { method: 'get', path: '/api/agent-factory/profiles/templates', response: R.ProfileTemplateList, summary: 'The pre-built profile templates (Nonprofit Investigator, Political Finance Tracker, Corporate Intelligence Analyst) with their data_sources and playbooks' },
  { method: 'post', path: '/api/agent-factory/profiles/from-template/{template_id}', response: R.ProfileFromTemplate, summary: 'Create a profile from a template (body: fields over the template\'s; handle defaults to the template id); answers connectors_to_bind and playbooks_to_attach', body: ProfileOverridesSchema, errors: { '409': 'You already have an agent with this handle' } },
  { method: 'get', path: '/api/agent-factory/profiles/{id}', response: R.ProfileAnswer, summary: 'One profile (yours, or shared with your team)' },
  { method: 'put', path: '/api/agent-factory/profiles/{id}', response: R.ProfileAnswer, summary: 'Change a profile: only the fields given (owner, or a team with an edit share)', body: ProfileBodySchema, errors: { '403': 'The profile is shared with your team for use only', '409': 'You already have an agent with this handle' } },
  { method: 'delete', path: '/api/agent-factory/profiles/{id}', summary: 'Delete a profile with its skills and shares (owner only)', status: '204', errors: { '403': 'Only the owner may delete it' } },
  { method: 'post', path: '/api/agent-factory/profiles/{id}/duplicate', response: R.ProfileAnswer, summary: 'Copy a profile into yours (fields and skills; not shares or connector bindings); handle: the one given or <handle>-copy', body: ProfileOverridesSchema, errors: { '409': 'You already have an agent with this handle' } },
  { method: 'get', path: '/api/agent-factory/profiles/{id}/playbooks', response: R.ProfilePlaybooks, summary: 'Playbooks attached to the profile' },
  { method: 'post', path: '/api/agent-factory/profiles/{id}/playbooks', response: R.PlaybookAttached, summary: 'Attach one of your playbooks (owner only); 400 naming each step whose connector is not bound to the profile (step-link rule 5)', body: AttachPlaybookSchema, errors: { '403': 'Only the owner may attach playbooks' } },
  { method: 'delete', path: '/api/agent-factory/profiles/{id}/playbooks/{playbook_id}', summary: 'Detach a playbook', status: '204' },
  { method: 'post', path: '/api/agent-factory/profiles/{id}/share', response: R.ProfileShareAnswer, status: ['201', '200'], summary: 'Share with one of your teams (access_level use | edit, team_file_access, team_post_access, journal_visibility); 201 new, 200 changed', body: ShareSchema, errors: { '403': 'Only the owner may share it' } },
  { method: 'put', path: '/api/agent-factory/profiles/{id}/share/{team_id}', response: R.ProfileShareAnswer, summary: 'Change a share\'s access level and flags (only the fields given)', body: UpdateShareSchema, errors: { '403': 'Only the owner may change its shares' } },
  { method: 'delete', path: '/api/agent-factory/profiles/{id}/share/{team_id}', summary: 'Stop sharing with a team', status: '204', errors: { '403': 'Only the owner may change its shares' } },
  { method: 'get', path: '/api/agent-factory/profiles/{id}/shares', response: R.ProfileShareList, summary: 'Teams the profile is shared with (a member sees their own teams\' shares)' },
  { method: 'get', path: '/api/agent-factory/teams/{team_id}/agents', response: R.AvailableAgentList, tag: 'Profiles', summary: 'Agents shared with one of your teams' },
  { method: 'get', path: '/api/agent-factory/resolve-handle', response: R.ResolvedHandle, tag: 'Profiles', summary: '?handle= (with or without @): your own agent first, then one shared with your teams; 404 lists the closest handles' },
  { method: 'get', path: '/api/agent-factory/available-agents', response: R.AvailableAgentList, tag: 'Profiles', summary: 'Agents you may @mention: yours (source own), then shared ones (source team, team_id, team_name)' },
  ...ENTITY_RESOLUTION_ROUTES,
  ...WORKSPACE_ROUTES,
  ...SCHEDULE_ROUTES,
  ...AGENT_ROUTES,
  ...QUERY_ROUTES,
  ...DOCUMENT_ROUTES,
];

/** Routes outside the API proper: health and these docs. */
export const META_ROUTES: RouteDoc[] = [
  { method: 'get', path: '/healthz', response: R.Health, summary: 'Liveness of the HTTP server: {status: ok}', public: true, tag: 'Meta' },
  { method: 'get', path: '/api/docs', response: R.OpenApiDocumentAnswer, summary: 'This document as JSON; a browser (Accept: text/html) gets the browsable reference page', public: true, tag: 'Meta' },
  { method: 'get', path: '/api/docs/openapi.json', response: R.OpenApiDocumentAnswer, summary: 'This OpenAPI 3.1 document', public: true, tag: 'Meta' },
];

export function openApiDocument(): Record<string, unknown> {
  return buildOpenApiDocument([...ROUTES, ...META_ROUTES]);
}
