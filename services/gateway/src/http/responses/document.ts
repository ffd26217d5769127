/**
 * ROUTES → an OpenAPI 3.1 document. Answers are converted in one pass over a
 * registry holding the shared components (which become `$ref`s) and each
 * route's own answer schema (inlined into its operation).
 */
import { z } from 'zod';
import { COMPONENTS, ErrorEnvelope } from './common.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteDoc {
  method: Method;
  path: string;
  summary: string;
  /** The JSON request body (parsed by the controller with the same schema). */
  body?: z.ZodType;
  /** Query parameters: an object schema whose keys are the parameter names. */
  query?: z.ZodObject;
  /** Descriptions of query parameters whose schema has none (the parsing schemas live with the controllers). */
  queryHelp?: Record<string, string>;
  /** The success answer's JSON body; absent only for 204 routes and Server-Sent Events routes (`frames`). */
  response?: z.ZodType;
  /** The success answer's media type when it is not JSON (a download: `response` then describes the bytes, e.g. Binary). */
  media?: string;
  /** Server-Sent Events routes: the schema of one frame's data. */
  frames?: z.ZodType;
  /** @deprecated Name the frame schema with `frames` instead (a route with only `sse` fails openapi.spec.ts). */
  sse?: boolean;
  public?: boolean;
  /** Success status(es) when not the default (201 for creating POSTs, else 200); several when the route picks (e.g. 201 created, 200 updated). */
  status?: string | string[];
  /** Further error statuses the route answers, with what they mean. */
  errors?: Record<string, string>;
  /** The route honours an Idempotency-Key header (a retry with the same key returns the first answer). */
  idempotent?: boolean;
  /** Tag (group in the docs page); default from the path (tagOf). */
  tag?: string;
}

const REF = (id: string) => `#/components/schemas/${id}`;

/** Default success statuses: 201 for POSTs that create, 200 otherwise. */
export function successStatuses(r: RouteDoc): string[] {
  if (r.status !== undefined) return Array.isArray(r.status) ? r.status : [r.status];
  const acts = /(validate|login|service-token|cancel|pause|resume|approve|reject|decline|resolve|respond)$/.test(r.path);
  return [r.method === 'post' && !acts ? '201' : '200'];
}

/** The docs page's group of a route, from its path (e.g. /api/v1/runs → Runs). */
export function tagOf(r: RouteDoc): string {
  if (r.tag) return r.tag;
  const p = r.path;
  if (p.startsWith('/api/auth') || p.startsWith('/api/v1/auth')) return 'Auth';
  if (p.startsWith('/api/v1/runs') || p.startsWith('/api/agent-factory/executions')) return 'Runs';
  if (p.startsWith('/api/v1/flex/tasks') || p.startsWith('/api/v1/flex/hitl') || p === '/api/v1/flex/run.resume' || p.startsWith('/hitl') || p.startsWith('/api/agent-factory/approvals')) return 'Approvals';
  if (p.startsWith('/api/v1/flex')) return 'Flex';
  if (p.startsWith('/api/v1/api-keys')) return 'API keys';
  const area = /^\/api\/(?:v1|agent-factory)\/([^/]+)/.exec(p)?.[1] ?? p.split('/')[1] ?? 'Other';
  return area.split(/[-_]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

/** `post /api/v1/runs/{id}/cancel` → `postApiV1RunsIdCancel` (names the operation in generated clients). */
export function operationId(r: RouteDoc): string {
  const words = `${r.method} ${r.path}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1))).join('');
}

function stripIds(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

function queryParameters(q: z.ZodObject, help: Record<string, string> = {}): Array<Record<string, unknown>> {
  const js = z.toJSONSchema(q, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  for (const name of Object.keys(help)) if (!js.properties?.[name]) throw new Error(`OpenAPI: queryHelp names ${name}, which the query schema does not have`);
  return Object.entries(js.properties ?? {}).map(([name, schema]) => {
    const { description: own, ...rest } = schema;
    const description = help[name] ?? own;
    return { name, in: 'query', required: js.required?.includes(name) ?? false, ...(description ? { description } : {}), schema: rest };
  });
}

/** Converts the answers: shared components by name, each route answer by a temporary id. */
function convertAnswers(routes: RouteDoc[]): { components: Record<string, unknown>; answerOf: (s: z.ZodType) => Record<string, unknown> } {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of COMPONENTS) registry.add(schema, { id });
  const temp = new Map<z.ZodType, string>();
  for (const r of routes) {
    for (const s of [r.response, r.frames]) {
      if (s && !COMPONENTS.has(s) && !temp.has(s)) {
        temp.set(s, `answer_${temp.size}`);
        registry.add(s, { id: temp.get(s)! });
      }
    }
  }
  const { schemas } = z.toJSONSchema(registry, { uri: REF, unrepresentable: 'any' }) as { schemas: Record<string, Record<string, unknown>> };
  const components: Record<string, unknown> = {};
  for (const id of COMPONENTS.values()) components[id] = stripIds(schemas[id]!);
  const text = JSON.stringify(components);
  const answers = new Map([...temp].map(([s, id]) => [s, stripIds(schemas[id]!)]));
  // A route answer used inside another schema would leave a dangling $ref: make it a component instead.
  for (const id of temp.values()) {
    if (text.includes(`"${REF(id)}"`) || [...answers.values()].some((a) => JSON.stringify(a).includes(`"${REF(id)}"`))) {
      throw new Error(`OpenAPI: route answer ${id} is nested in another schema; declare it with component()`);
    }
  }
  return { components, answerOf: (s) => (COMPONENTS.has(s) ? { $ref: REF(COMPONENTS.get(s)!) } : answers.get(s)!) };
}

export function buildOpenApiDocument(routes: RouteDoc[]): Record<string, unknown> {
  const { components, answerOf } = convertAnswers(routes);
  const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: REF('Error') } } } });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const success = Object.fromEntries(
      successStatuses(r).map((status) => {
        if (r.frames) return [status, { description: 'A stream of Server-Sent Events; each `data:` is one frame (schema below), `event:` its type, `id:` its sequence number', content: { 'text/event-stream': { schema: answerOf(r.frames) } } }];
        if (!r.response) return [status, { description: 'No content' }];
        return [status, { description: 'OK', content: { [r.media ?? 'application/json']: { schema: answerOf(r.response) } } }];
      }),
    );
    const headers = [
      ...(r.idempotent ? [{ name: 'Idempotency-Key', in: 'header', required: false, description: 'A retry with the same key returns the first answer instead of acting twice (at most 200 characters are used)', schema: { type: 'string' } }] : []),
      ...(r.frames && r.method === 'get' ? [{ name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume after this frame id', schema: { type: 'string' } }] : []),
    ];
    const parameters = [...params, ...(r.query ? queryParameters(r.query, r.queryHelp) : []), ...headers];
    const op: Record<string, unknown> = {
      operationId: operationId(r),
      tags: [tagOf(r)],
      summary: r.summary,
      ...(parameters.length ? { parameters } : {}),
      ...(r.public ? { security: [] } : {}),
      responses: {
        ...success,
        '400': error('Invalid input: `violations` name each field, with a suggestedFix when one is known'),
        ...(r.public ? {} : { '401': error('Missing, invalid or expired token') }),
        '404': error('Not found (also for resources of other users)'),
        ...Object.fromEntries(Object.entries(r.errors ?? {}).map(([status, description]) => [status, error(description)])),
      },
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: stripIds(z.toJSONSchema(r.body, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>) } } };
    (paths[r.path] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Factory API',
      version: '0.1.0',
      description:
        'Bearer tokens from POST /api/auth/login (or an API key as X-API-Key). Every error is `{error: {code, message, violations}}` (components/schemas/Error). Lists page with page_size and page_token / next_page_token. POSTs that start or change something take an Idempotency-Key header. Server-Sent Events routes send frames {type, id, timestamp, payload, runId, nodeId?} (components/schemas/RunFrame); a browser\'s EventSource authenticates with ?stream_token= from POST /api/auth/stream-token.',
    },
    tags: [...new Set(routes.map(tagOf))].map((name) => ({ name })),
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } }, schemas: components },
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
  };
}

export { ErrorEnvelope };
