import { z } from 'zod';
import { checkAnswer, routeMatcher } from './conformance.js';
import type { RouteDoc } from './document.js';

const Thing = z.strictObject({ thing: z.strictObject({ id: z.string(), tags: z.array(z.string()) }) });
const ROUTES: RouteDoc[] = [
  { method: 'get', path: '/api/things/{id}', summary: 'one', response: Thing },
  { method: 'get', path: '/api/things/templates', summary: 'static beats {id}', response: z.strictObject({ templates: z.array(z.string()) }) },
  { method: 'post', path: '/api/things', summary: 'create', response: Thing },
  { method: 'post', path: '/api/things/{id}/run.stream', summary: 'sse', frames: z.strictObject({ type: z.string() }), status: '200' },
  { method: 'delete', path: '/api/things/{id}', summary: 'remove', status: '204' },
  { method: 'post', path: '/api/things/{id}/members', summary: 'add or change', response: Thing, status: ['201', '200'] },
];
const match = routeMatcher(ROUTES);

describe('routeMatcher', () => {
  it('finds the route by method and path, a literal segment winning over a parameter', () => {
    expect(match('GET', '/api/things/t1')?.route.summary).toBe('one');
    expect(match('GET', '/api/things/templates')?.route.summary).toBe('static beats {id}');
    expect(match('GET', '/api/things/templates/')?.route.summary).toBe('static beats {id}');
    expect(match('POST', '/api/things/t1/run.stream')?.operationId).toBe('postApiThingsIdRunStream');
  });

  it('matches nothing for another method, a longer path, or a dot that is not literal', () => {
    expect(match('PUT', '/api/things/t1')).toBeUndefined();
    expect(match('GET', '/api/things/t1/more')).toBeUndefined();
    expect(match('POST', '/api/things/t1/runXstream')).toBeUndefined();
  });
});

describe('checkAnswer', () => {
  const one = match('GET', '/api/things/t1');
  it('accepts an answer that matches its route and status', () => {
    expect(checkAnswer(one, 200, { thing: { id: 'a', tags: [] } })).toEqual([]);
    expect(checkAnswer(match('POST', '/api/things'), 201, { thing: { id: 'a', tags: ['x'] } })).toEqual([]);
    expect(checkAnswer(match('POST', '/api/things/a/members'), 200, { thing: { id: 'a', tags: [] } })).toEqual([]);
  });

  it('names the body paths that differ, undocumented keys included', () => {
    expect(checkAnswer(one, 200, { thing: { id: 1, tags: [] } })).toEqual([{ field: 'thing.id', reason: expect.stringMatching(/string/) }]);
    expect(checkAnswer(one, 200, { thing: { id: 'a', tags: [2] } })[0]!.field).toBe('thing.tags.0');
    expect(checkAnswer(one, 200, { thing: { id: 'a', tags: [], extra: true } })[0]!.reason).toMatch(/extra/);
    expect(checkAnswer(one, 200, null)[0]!.field).toBe('(body)');
  });

  it('refuses a success status the route does not document', () => {
    expect(checkAnswer(match('POST', '/api/things'), 200, { thing: { id: 'a', tags: [] } })).toEqual([{ field: '(status)', reason: 'status 200 is not documented (documented: 201)' }]);
  });

  it('refuses JSON from routes that document none, and answers of undocumented routes', () => {
    expect(checkAnswer(match('DELETE', '/api/things/a'), 204, {})[0]!.reason).toMatch(/documents no response body/);
    expect(checkAnswer(match('POST', '/api/things/a/run.stream'), 200, {})[0]!.reason).toMatch(/Server-Sent Events/);
    expect(checkAnswer(undefined, 200, { ok: true })[0]!.field).toBe('(route)');
  });

  it('checks every error answer against the error envelope, on any route', () => {
    const err = { error: { code: 'INVALID_ARGUMENT', message: 'bad', violations: [{ field: 'inptus', reason: 'unknown', code: 'unknown_field', suggestedFix: 'inputs' }] } };
    expect(checkAnswer(one, 400, err)).toEqual([]);
    expect(checkAnswer(undefined, 404, { error: { code: 'NOT_FOUND', message: 'no', violations: [] } })).toEqual([]);
    expect(checkAnswer(one, 404, { statusCode: 404, message: 'Not Found' })[0]!.field).toBe('error');
    expect(checkAnswer(one, 400, { error: { code: 'X', message: 'm' } })[0]!.field).toBe('error.violations');
  });
});
