/**
 * The OpenAPI 3.1 document served at /api/docs, built from the same zod
 * schemas that parse the request bodies.
 */
import { z } from 'zod';
import {
  BindConnectorSchema,
  CreateConnectorSchema,
  EnablePluginSchema,
  FromTemplateSchema,
  TestConnectorSchema,
  TestInlineConnectorSchema,
  UpdateConnectorSchema,
  ValidateConnectorSchema,
  LoginSchema, PlaybookYamlSchema, RegisterSchema, ResumeRunSchema, StartRunSchema } from './schemas.js';

interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  body?: z.ZodType;
  public?: boolean;
  sse?: boolean;
}

export const ROUTES: RouteDoc[] = [
  { method: 'post', path: '/api/auth/register', summary: 'Create an account', body: RegisterSchema, public: true },
  { method: 'post', path: '/api/auth/login', summary: 'Exchange email and password for a bearer token', body: LoginSchema, public: true },
  { method: 'post', path: '/api/v1/runs', summary: 'Start a run of a playbook (YAML or stored id)', body: StartRunSchema },
  { method: 'get', path: '/api/v1/runs', summary: 'Your runs, newest first (?status=a,b&page_size=&page_token=)' },
  { method: 'get', path: '/api/v1/runs/{id}', summary: 'Run status, node states and outputs' },
  { method: 'post', path: '/api/v1/runs/{id}/pause', summary: 'Pause a run' },
  { method: 'post', path: '/api/v1/runs/{id}/resume', summary: 'Resume a paused run or decide a waiting approval', body: ResumeRunSchema },
  { method: 'get', path: '/api/agent-factory/executions', summary: 'Executions (runs), as in the seed API' },
  { method: 'get', path: '/api/agent-factory/executions/{id}', summary: 'One execution' },
  { method: 'post', path: '/api/v1/runs/{id}/cancel', summary: 'Cancel a run' },
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
  { method: 'post', path: '/api/agent-factory/connectors/from-template/{template_id}', summary: 'Create a connector from a template', body: FromTemplateSchema },
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
  { method: 'post', path: '/api/agent-factory/playbooks', summary: 'Store a playbook', body: PlaybookYamlSchema },
  { method: 'get', path: '/api/agent-factory/playbooks/{id}', summary: 'Playbook detail' },
  { method: 'get', path: '/api/agent-factory/actions', summary: 'Action I/O registry (filter with ?category=)' },
  { method: 'get', path: '/api/agent-factory/actions/{name}', summary: 'One action I/O contract' },
  { method: 'post', path: '/api/agent-factory/playbooks/validate', summary: 'Validate playbook YAML; per-step results', body: PlaybookYamlSchema },
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
        [r.method === 'post' && !r.path.endsWith('validate') && !r.path.endsWith('login') && !r.path.endsWith('cancel') && !r.path.endsWith('pause') && !r.path.endsWith('resume') ? '201' : '200']: {
          description: 'OK',
          ...(r.sse ? { content: { 'text/event-stream': { schema: { type: 'string' } } } } : {}),
        },
        '400': { description: 'Invalid input', content: { 'application/json': { schema: ErrorBody } } },
        ...(r.public ? {} : { '401': { description: 'Missing, invalid or expired token', content: { 'application/json': { schema: ErrorBody } } } }),
        '404': { description: 'Not found (also for resources of other users)', content: { 'application/json': { schema: ErrorBody } } },
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
