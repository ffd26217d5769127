/**
 * The OpenAPI document against the code: every controller route is
 * documented (and nothing else), every route names its success answer, every
 * $ref resolves, and the examples in the document are valid answers.
 */
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { GatewayModule } from './gateway.module.js';
import type { GatewayDeps } from './deps.js';
import { META_ROUTES, openApiDocument, ROUTES } from './openapi.js';
import { COMPONENTS } from './responses/common.js';
import { successStatuses } from './responses/document.js';

type Doc = { paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, unknown> } };
const doc = openApiDocument() as unknown as Doc;
const ALL = [...ROUTES, ...META_ROUTES];
/** The docs page's own files (script, styles): not API. */
const PAGE_FILES = ['get /api/docs/init.js', 'get /api/docs/{}'];

/** `{id}` and `:id` alike: the documented path's parameter names need not be the controller's. */
const shape = (method: string, path: string) => `${method.toLowerCase()} ${path.replace(/\{\w+\}|:\w+/g, '{}').replace(/\/+$/, '')}`;

function controllerRoutes(): string[] {
  const controllers = (GatewayModule.forRoot({} as GatewayDeps).controllers ?? []) as Array<new (...a: never[]) => unknown>;
  const out: string[] = [];
  for (const c of controllers) {
    const prefix = String(Reflect.getMetadata(PATH_METADATA, c) ?? '');
    for (const name of Object.getOwnPropertyNames(c.prototype)) {
      const handler = (c.prototype as Record<string, unknown>)[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (path === undefined || method === undefined) continue;
      out.push(shape(RequestMethod[method], `/${[prefix, path].filter((p) => p && p !== '/').join('/')}`));
    }
  }
  return out;
}

function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refs(v, found));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') found.push(v);
      else refs(v, found);
    }
  }
  return found;
}

describe('OpenAPI document', () => {
  it('documents every route the controllers serve, and only those', () => {
    const served = controllerRoutes();
    const documented = ALL.map((r) => shape(r.method, r.path));
    expect(served.length).toBeGreaterThan(80);
    expect(served.filter((r) => !documented.includes(r) && !PAGE_FILES.includes(r))).toEqual([]);
    expect(documented.filter((r) => !served.includes(r))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('names the success answer of every route: a response schema, SSE frames, or 204 no content', () => {
    const missing = ALL.filter((r) => !r.response && !r.frames && !successStatuses(r).every((s) => s === '204')).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    const bodyOn204 = ALL.filter((r) => r.response && successStatuses(r).includes('204')).map((r) => `${r.method} ${r.path}`);
    expect(bodyOn204).toEqual([]);
  });

  it('gives every operation a 2xx answer with a schema, a tag and a unique operationId', () => {
    const ids: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const responses = op.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>;
        const ok = Object.entries(responses).filter(([s]) => s.startsWith('2'));
        expect([path, method, ok.length > 0]).toEqual([path, method, true]);
        for (const [status, res] of ok) {
          if (status === '204') expect(res.content).toBeUndefined();
          else expect([path, method, Object.values(res.content ?? {}).every((c) => c.schema && Object.keys(c.schema).length > 0)]).toEqual([path, method, true]);
        }
        expect((responses['400']?.content?.['application/json']?.schema as { $ref?: string }).$ref).toBe('#/components/schemas/Error');
        expect((op.tags as string[]).length).toBe(1);
        ids.push(op.operationId as string);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('resolves every $ref to a component', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(50);
    const missing = all.filter((r) => !r.startsWith('#/components/schemas/') || !(r.slice('#/components/schemas/'.length) in doc.components.schemas));
    expect(missing).toEqual([]);
  });

  it('documents real query parameters (list filters and paging)', () => {
    const params = (path: string) => ((doc.paths[path]!.get!.parameters ?? []) as Array<{ name: string; in: string; description?: string }>).filter((p) => p.in === 'query');
    expect(params('/api/v1/runs').map((p) => p.name)).toEqual(['status', 'task_status', 'page_size', 'page_token', 'agent_profile_id', 'playbook_id']);
    expect(params('/api/v1/runs').every((p) => p.description)).toBe(true);
    expect(params('/api/agent-factory/approvals').map((p) => p.name)).toEqual(['kind', 'status', 'run_id', 'page_size', 'page_token']);
    expect(params('/api/agent-factory/connectors/bindings').map((p) => p.name)).toEqual(['agent_profile_id']);
    expect(params('/api/agent-factory/connectors/templates').map((p) => p.name)).toEqual(['category']);
  });

  it('documents the Idempotency-Key and Last-Event-ID headers where they are honoured', () => {
    const header = (path: string, method: string) => ((doc.paths[path]![method]!.parameters ?? []) as Array<{ name: string; in: string }>).filter((p) => p.in === 'header').map((p) => p.name);
    expect(header('/api/v1/runs', 'post')).toEqual(['Idempotency-Key']);
    expect(header('/api/v1/runs', 'get')).toEqual([]);
    expect(header('/api/v1/runs/{id}/events', 'get')).toEqual(['Last-Event-ID']);
  });

  it('documents the SSE frames and the error envelope with suggestedFix as shared components', () => {
    const events = doc.paths['/api/v1/runs/{id}/events']!.get!.responses as Record<string, { content: Record<string, { schema: unknown }> }>;
    expect(events['200']!.content['text/event-stream']!.schema).toEqual({ $ref: '#/components/schemas/RunFrame' });
    const frames = (doc.components.schemas.RunFrame as { anyOf: Array<{ $ref: string }> }).anyOf.map((f) => f.$ref.split('/').pop());
    expect(frames).toEqual(expect.arrayContaining(['Frame_start', 'Frame_node_complete', 'Frame_hitl_request', 'Frame_complete', 'Frame_custom']));
    const violation = doc.components.schemas.Violation as { properties: Record<string, unknown> };
    expect(Object.keys(violation.properties)).toEqual(expect.arrayContaining(['field', 'reason', 'code', 'suggestedFix']));
  });

  it('gives only valid examples', () => {
    let checked = 0;
    for (const schema of COMPONENTS.keys()) {
      for (const example of (schema.meta()?.examples as unknown[] | undefined) ?? []) {
        expect(schema.safeParse(example).error?.issues ?? []).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });
});
