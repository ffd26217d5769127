/**
 * The OpenAPI 3.1 document served at /api/docs, built from the same zod
 * schemas that parse the request bodies.
 */
import { z } from 'zod';
import { FlexJsonObjectSchema, HeartbeatBodySchema, UpsertFacetsSchema } from './flex.schemas.js';
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
  LoginSchema,
  ReplanRunSchema, PlaybookYamlSchema, RegisterSchema, ResumeRunSchema, StartRunSchema, TestPlaybookSchema, ValidateStoredPlaybookSchema } from './schemas.js';
import { AddMemberSchema, CreateTeamSchema } from './teams.schemas.js';
import { CreateApiKeySchema } from '../domain/api-keys.js';
import { SCHEDULE_ROUTES } from '../schedules/schedule.routes.js';
import { ApproveSchema, DeclineTaskSchema, HitlRespondSchema, HitlResolveSchema, RejectSchema, RunResumeSchema } from './approval.schemas.js';

interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  body?: z.ZodType;
  public?: boolean;
  sse?: boolean;
  /** Success status when it is not the default (201 for creating POSTs, else 200). */
  status?: string;
  /** Further error statuses the route answers, with what they mean. */
  errors?: Record<string, string>;
}

const TEAM_CHANGE_ERRORS = {
  '403': 'You are a member of the team but not an owner',
  '409': 'The team\'s last owner cannot be removed or demoted',
};

export const ROUTES: RouteDoc[] = [
  { method: 'post', path: '/api/auth/register', summary: 'Create an account (common, simple or over-72-byte passwords are refused)', body: RegisterSchema, public: true,
    errors: { '409': 'The email is already registered', '429': 'Too many password checks in progress from this client address (Retry-After)', '503': 'Password checking is busy (Retry-After)' } },
  { method: 'post', path: '/api/auth/login', summary: 'Exchange email and password for a bearer token', body: LoginSchema, public: true,
    errors: { '401': 'Email or password is wrong', '429': 'Too many failed attempts for the account or from the client address (code too_many_attempts, Retry-After)', '503': 'Password checking is busy (Retry-After)' } },
  { method: 'post', path: '/api/auth/logout-all', summary: 'Revoke every token of your account, this one included', status: '204' },
  { method: 'delete', path: '/api/auth/me', summary: 'Delete your account; body {password} confirms it', body: DeleteAccountSchema, status: '204',
    errors: { '403': 'The password is wrong', '409': 'A team you created or solely own still has other members', '429': 'Too many failed attempts (Retry-After)' } },
  { method: 'post', path: '/api/v1/runs', summary: 'Start a run from exactly one of yaml (playbook YAML; its deprecated name `playbook` is still taken, with Deprecation, Warning and Link headers), playbook_id (+ playbook_revision), workflow_steps or plan (a PlanGraph); 400 names the field (workflow_steps[1].dependencies[0], plan.nodes[0].dependsOn for a cycle, unknown fields)', body: StartRunSchema },
  { method: 'get', path: '/api/v1/runs', summary: 'Your runs, newest first (?status=a,b&page_size=&page_token=)' },
  { method: 'get', path: '/api/v1/runs/{id}', summary: 'Run status, node states and outputs' },
  { method: 'post', path: '/api/v1/runs/{id}/pause', summary: 'Pause a run' },
  { method: 'post', path: '/api/v1/runs/{id}/resume', summary: 'Resume a paused run or decide a waiting approval', body: ResumeRunSchema },
  { method: 'get', path: '/api/agent-factory/executions', summary: 'Executions (runs), as in the seed API' },
  { method: 'get', path: '/api/agent-factory/executions/{id}', summary: 'One execution' },
  { method: 'post', path: '/api/v1/runs/{id}/cancel', summary: 'Cancel a run' },
  { method: 'post', path: '/api/v1/runs/{id}/replan', summary: 'Replan an unfinished run: plan version N+1, completed steps locked; without yaml the playbook version the run started with is compiled again (`playbook` is the deprecated name of yaml)', body: ReplanRunSchema },
  { method: 'post', path: '/api/v1/runs/{id}/policies/{policyId}/trigger', summary: 'Fire a runtime policy whose trigger is manual' },
  { method: 'get', path: '/api/v1/runs/{id}/events', summary: 'Run frames as Server-Sent Events; resume with Last-Event-ID', sse: true },
  { method: 'get', path: '/api/agent-factory/connectors', summary: 'List your connectors' },
  { method: 'post', path: '/api/agent-factory/connectors', summary: 'Create a connector from YAML', body: CreateConnectorSchema },
  { method: 'get', path: '/api/agent-factory/connectors/{id}', summary: 'Connector detail (credentials never returned)' },
  { method: 'delete', path: '/api/agent-factory/connectors/{id}', summary: 'Delete a connector' },
  { method: 'put', path: '/api/agent-factory/connectors/{id}', summary: 'Replace a connector definition (credentials given are added or replaced)', body: UpdateConnectorSchema },
  { method: 'post', path: '/api/agent-factory/connectors/validate', summary: 'Validate connector YAML without saving it', body: ValidateConnectorSchema },
  { method: 'post', path: '/api/agent-factory/connectors/{id}/validate', summary: 'Validate a saved connector, or YAML for it', body: ValidateConnectorSchema },
  { method: 'post', path: '/api/agent-factory/connectors/test', summary: 'Call an endpoint of an unsaved connector once; returns records and an inferred output_schema', body: TestInlineConnectorSchema },
  { method: 'post', path: '/api/agent-factory/connectors/{id}/test', summary: 'Call an endpoint of a saved connector once; returns records and an inferred output_schema', body: TestConnectorSchema },
  { method: 'get', path: '/api/agent-factory/connectors/{id}/schema', summary: 'Input and output JSON Schemas of every endpoint' },
  { method: 'get', path: '/api/agent-factory/connectors/templates', summary: 'System connector templates (?category=)' },
  { method: 'post', path: '/api/agent-factory/connectors/from-template/{template_id}', summary: 'Create a connector from a template (id: connector_id, else the template id); 409 naming connector_id when you already have that connector, unless overwrite: true replaces it', body: FromTemplateSchema },
  { method: 'get', path: '/api/agent-factory/connectors/bindings', summary: 'Your connector bindings (?agent_profile_id=)' },
  { method: 'put', path: '/api/agent-factory/connectors/{id}/bindings/{profile_id}', summary: 'Bind a connector to an agent profile', body: BindConnectorSchema },
  { method: 'delete', path: '/api/agent-factory/connectors/{id}/bindings/{profile_id}', summary: 'Remove a binding' },
  { method: 'get', path: '/api/agent-factory/plugins', summary: 'Registered connector plugins' },
  { method: 'get', path: '/api/agent-factory/plugins/{name}', summary: 'Plugin detail with tool I/O contracts' },
  { method: 'get', path: '/api/agent-factory/plugins/{name}/tools', summary: 'Tools of a plugin with I/O contracts' },
  { method: 'post', path: '/api/agent-factory/plugins/{name}/enable', summary: 'Enable a plugin for you with its config (stored encrypted)', body: EnablePluginSchema },
  { method: 'delete', path: '/api/agent-factory/plugins/{name}/enable', summary: 'Disable a plugin for you' },
  { method: 'post', path: '/api/agent-factory/plugins/{name}/test', summary: 'Check the plugin is alive and enabled for you' },
  { method: 'get', path: '/api/agent-factory/playbooks', summary: 'List your playbooks' },
  { method: 'post', path: '/api/agent-factory/playbooks', summary: 'Store a playbook (revision 1; the same id again stores a new version)', body: PlaybookYamlSchema },
  { method: 'get', path: '/api/agent-factory/playbooks/{id}', summary: 'Playbook detail: the latest version, or ?revision=' },
  { method: 'put', path: '/api/agent-factory/playbooks/{id}', summary: 'Store a new version (earlier ones are kept; runs keep the version they started with); the YAML id must be the path id; unchanged YAML answers changed: false', body: PlaybookYamlSchema },
  { method: 'delete', path: '/api/agent-factory/playbooks/{id}', summary: 'Delete a playbook and its versions', status: '204', errors: { '409': 'A schedule or agent profile still uses the playbook (each is named)' } },
  { method: 'get', path: '/api/agent-factory/playbooks/{id}/versions', summary: 'Every stored version, newest first' },
  { method: 'post', path: '/api/agent-factory/playbooks/{id}/validate', summary: 'Validate the stored playbook, or YAML meant to replace it (its id must be the path id); per-step results', body: ValidateStoredPlaybookSchema },
  { method: 'post', path: '/api/agent-factory/playbooks/{id}/test', summary: 'Dry run with sample inputs: side-effecting steps are skipped (reason dry_run, would-be inputs on their node_complete frame) unless allow_side_effects: true; returns the run', body: TestPlaybookSchema },
  { method: 'get', path: '/api/agent-factory/playbooks/{id}/graph', summary: 'Steps (kind, step type, action, side effect, output types), edges (dependencies, fallbacks, routes) and Kahn levels (?revision=)' },
  { method: 'get', path: '/api/agent-factory/actions', summary: 'Action I/O registry (filter with ?category=): built-in actions and served plugin tools, each with available / served_by / owner' },
  { method: 'get', path: '/api/agent-factory/actions/{name}', summary: 'One action I/O contract' },
  { method: 'post', path: '/api/agent-factory/playbooks/validate', summary: 'Validate playbook YAML: {valid, errors, warnings, results}, every issue with field, step, line, column and suggestedFix', body: PlaybookYamlSchema },
  { method: 'get', path: '/api/agent-factory/approvals', summary: 'Pending approvals you may act on (?kind=&status=&run_id=; `all` lifts a filter)' },
  { method: 'get', path: '/api/agent-factory/approvals/{id}', summary: 'One approval request with its preview data and resolution' },
  { method: 'post', path: '/api/agent-factory/approvals/{id}/approve', summary: 'Approve (optionally with instructions) and resume the run; 409 when no longer pending', body: ApproveSchema },
  { method: 'post', path: '/api/agent-factory/approvals/{id}/reject', summary: 'Reject with an optional reason (stored and answered as `reason`; `instructions` is its deprecated name, still taken, with Deprecation, Warning and Link headers); the run stops or skips the step per on_reject; 409 when no longer pending', body: RejectSchema },
  { method: 'get', path: '/api/v1/flex/tasks', summary: 'Human tasks you may work on (?capabilityId=&status=&runId=)' },
  { method: 'post', path: '/api/v1/flex/tasks/{taskId}/decline', summary: 'Decline a human task with a reason code (the run ends per policy)', body: DeclineTaskSchema },
  { method: 'post', path: '/api/v1/flex/hitl/resolve', summary: 'Record an operator decision (or a clarification answer); a reject may give `reason`, answered as resolution.reason; unknown fields are 400 with a did-you-mean', body: HitlResolveSchema },
  { method: 'post', path: '/api/v1/flex/run.resume', summary: 'Hand in what a run waits for: human task output, clarification answer or decision (a reject may give `reason`); unknown fields are 400 with a did-you-mean', body: RunResumeSchema },
  { method: 'post', path: '/api/v1/flex/capabilities/register', summary: 'Register or update a capability of yours, or of a team of yours with teamId (flex §5.6.2 payload, validated field by field)', body: FlexJsonObjectSchema },
  { method: 'post', path: '/api/v1/flex/capabilities/{id}/heartbeat', summary: 'Capability instance heartbeat (stale instances become inactive)', body: HeartbeatBodySchema },
  { method: 'delete', path: '/api/v1/flex/capabilities/{id}', summary: 'Deregister a capability (?instance= for one instance)' },
  { method: 'get', path: '/api/v1/flex/capabilities', summary: 'Capabilities you may use: yours, your teams\', the shared catalog (filters in the query)' },
  { method: 'get', path: '/api/v1/flex/capabilities/{id}', summary: 'One capability with its instances' },
  { method: 'get', path: '/api/v1/flex/facets', summary: 'Your facet catalog: yours, your teams\', the shared catalog' },
  { method: 'post', path: '/api/v1/flex/facets', summary: 'Add or update facets of yours (or of a team of yours; the shared catalog is the operator\'s)', body: UpsertFacetsSchema },
  { method: 'post', path: '/api/v1/flex/plan', summary: 'Plan a TaskEnvelope: a validated PlanGraph (IR form, enums by name: kind, runContext, …) with diagnostics (no run)', body: FlexJsonObjectSchema },
  { method: 'get', path: '/api/v1/flex/sandbox/metadata', summary: 'Capabilities, facets and templates for the sandbox UI' },
  { method: 'post', path: '/api/v1/flex/run.stream', summary: 'Plan a TaskEnvelope and run it; streams plan and run frames (SSE)', body: FlexJsonObjectSchema, sse: true },
  { method: 'get', path: '/api/v1/flex/runs/{id}', summary: 'A flex run with its plan and outputs' },
  { method: 'post', path: '/api/v1/teams', summary: 'Create a team; you become its owner', body: CreateTeamSchema },
  { method: 'get', path: '/api/v1/teams', summary: 'Teams you are a member of, with your role' },
  { method: 'get', path: '/api/v1/teams/{id}', summary: 'A team and its members (members only; 404 otherwise)' },
  { method: 'post', path: '/api/v1/teams/{id}/members', summary: 'Owners: add a user by user_id or email (201), or change a member\'s role (200)', body: AddMemberSchema, errors: TEAM_CHANGE_ERRORS },
  { method: 'delete', path: '/api/v1/teams/{id}/members/{userId}', summary: 'Owners: remove a member (anyone may remove themself)', errors: TEAM_CHANGE_ERRORS },
  { method: 'post', path: '/api/v1/api-keys', summary: 'Create an API key for a service ({name, team_id?, expires_in_days?}); the key is in this answer only (login token required)', body: CreateApiKeySchema, errors: { '403': 'API keys cannot create API keys' } },
  { method: 'get', path: '/api/v1/api-keys', summary: 'Your API keys (prefix, team, expiry, revocation, last use; never the key)' },
  { method: 'delete', path: '/api/v1/api-keys/{id}', summary: 'Revoke an API key (effective on its next request)' },
  { method: 'post', path: '/api/v1/auth/service-token', summary: 'Exchange an API key (X-API-Key or Bearer afk_…) for a short-lived principal token to send as af-principal-token gRPC metadata', errors: { '403': 'Only an API key can be exchanged' } },
  { method: 'post', path: '/hitl/respond', summary: 'Seed HITL response: {request_id, decision: approved|denied, instructions?}; 409 when already resolved', body: HitlRespondSchema },
  ...SCHEDULE_ROUTES,
];

const ErrorBody = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'violations'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        violations: {
          type: 'array',
          items: { type: 'object', properties: { field: { type: 'string' }, reason: { type: 'string' }, code: { type: 'string' } } },
        },
      },
    },
  },
};

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) {
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const op: Record<string, unknown> = {
      summary: r.summary,
      ...(params.length ? { parameters: params } : {}),
      ...(r.public ? { security: [] } : {}),
      responses: {
        [r.status ?? (r.method === 'post' && !r.path.endsWith('validate') && !r.path.endsWith('login') && !r.path.endsWith('service-token') && !r.path.endsWith('cancel') && !r.path.endsWith('pause') && !r.path.endsWith('resume') && !/\/(approve|reject|decline|resolve|respond)$/.test(r.path) ? '201' : '200')]: {
          description: 'OK',
          ...(r.sse ? { content: { 'text/event-stream': { schema: { type: 'string' } } } } : {}),
        },
        '400': { description: 'Invalid input', content: { 'application/json': { schema: ErrorBody } } },
        ...(r.public ? {} : { '401': { description: 'Missing, invalid or expired token', content: { 'application/json': { schema: ErrorBody } } } }),
        '404': { description: 'Not found (also for resources of other users)', content: { 'application/json': { schema: ErrorBody } } },
        ...Object.fromEntries(Object.entries(r.errors ?? {}).map(([status, description]) => [status, { description, content: { 'application/json': { schema: ErrorBody } } }])),
      },
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: z.toJSONSchema(r.body, { io: 'input' }) } } };
    (paths[r.path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Agent Factory API', version: '0.1.0' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
