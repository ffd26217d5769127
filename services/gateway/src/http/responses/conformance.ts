/**
 * Does an answer match the document? Pure: the route a request took (by
 * method and path, the most literal match winning, as the router's static
 * routes do), then the JSON body against the route's documented answer for
 * its status: the success schema for a documented 2xx, the error envelope
 * for 4xx/5xx.
 */
import type { z } from 'zod';
import { ErrorEnvelope } from './common.js';
import { operationId, successStatuses, type RouteDoc } from './document.js';

export interface Mismatch {
  field: string;
  reason: string;
}

export interface MatchedRoute {
  route: RouteDoc;
  operationId: string;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** method + path → the documented route, or undefined. */
export function routeMatcher(routes: readonly RouteDoc[]): (method: string, path: string) => MatchedRoute | undefined {
  const compiled = routes.map((route) => {
    const segments = route.path.split('/');
    const pattern = segments.map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : escape(s))).join('/');
    return { route, operationId: operationId(route), re: new RegExp(`^${pattern}/?$`), literal: segments.filter((s) => !s.startsWith('{')).length };
  });
  return (method, path) => {
    const m = method.toLowerCase();
    const hits = compiled.filter((c) => c.route.method === m && c.re.test(path)).sort((a, b) => b.literal - a.literal);
    return hits[0] && { route: hits[0].route, operationId: hits[0].operationId };
  };
}

function issues(schema: z.ZodType, body: unknown): Mismatch[] {
  const res = schema.safeParse(body);
  if (res.success) return [];
  return res.error.issues.slice(0, 20).map((i) => ({ field: i.path.map(String).join('.') || '(body)', reason: i.message }));
}

/** What is wrong with answering `body` with `status` on `matched` (empty: nothing). */
export function checkAnswer(matched: MatchedRoute | undefined, status: number, body: unknown): Mismatch[] {
  if (status >= 400) return issues(ErrorEnvelope, body);
  if (!matched) return [{ field: '(route)', reason: 'answered a route the OpenAPI document does not list (add it to ROUTES)' }];
  const { route } = matched;
  if (!successStatuses(route).includes(String(status))) return [{ field: '(status)', reason: `status ${status} is not documented (documented: ${successStatuses(route).join(', ')})` }];
  if (!route.response) return [{ field: '(body)', reason: route.frames ? 'a Server-Sent Events route answered JSON' : 'the route documents no response body (add `response` to its ROUTES entry)' }];
  return issues(route.response, body);
}
