import { AppError } from '@af/service-kit';
import type { z } from 'zod';
import { DeclineTaskSchema, HitlResolveSchema, ListTasksQuery, RunResumeSchema } from './approval.schemas.js';
import { DeregisterQuery, HeartbeatBodySchema, ListCapabilitiesQuery, ListFacetsQuery, PlanQuery, UpsertFacetsSchema } from './flex.schemas.js';
import { parseBody } from './validation.js';

const RUN = '4b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';

function refusal(schema: z.ZodType, body: unknown): AppError {
  try {
    parseBody(schema, body);
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a 400');
}

describe('/api/v1/flex bodies and queries: unknown keys', () => {
  it.each([
    ['heartbeat', HeartbeatBodySchema, { instanceID: 'i-1' }, 'instanceID', 'instanceId'],
    ['facets', UpsertFacetsSchema, { facets: [{ name: 'x' }], colection: 'mine' }, 'colection', 'collection'],
    ['facets', UpsertFacetsSchema, { facets: [{ name: 'x' }], visibility: 'team', teamID: 't' }, 'teamID', 'teamId'],
    ['tasks/:id/decline', DeclineTaskSchema, { reasonCode: 'other', reson: 'busy' }, 'reson', 'reason'],
    ['hitl/resolve', HitlResolveSchema, { requestId: 'r', decision: 'approve', instruction: 'go' }, 'instruction', 'instructions'],
    ['run.resume', RunResumeSchema, { runId: RUN, ouput: { a: 1 } }, 'ouput', 'output'],
    ['run.resume', RunResumeSchema, { runId: RUN, decision: 'approve', expectedPlanversion: 2 }, 'expectedPlanversion', 'expectedPlanVersion'],
    ['GET tasks', ListTasksQuery, { runid: RUN }, 'runid', 'runId'],
    ['GET capabilities', ListCapabilitiesQuery, { include_inactiv: 'true' }, 'include_inactiv', 'include_inactive'],
    ['DELETE capabilities/:id', DeregisterQuery, { instance: 'i-1' }, 'instance', 'instance_id'],
    ['GET facets', ListFacetsQuery, { catalogTag: 'x' }, 'catalogTag', 'catalog_tag'],
    ['plan', PlanQuery, { max_attempt: '2' }, 'max_attempt', 'max_attempts'],
  ])('%s: 400 naming the unknown field with a did-you-mean', (_route, schema, body, field, meant) => {
    const err = refusal(schema, body);
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toEqual([{ field, reason: `unknown field (did you mean '${meant}'?)`, code: 'unknown_field', suggestedFix: meant }]);
    expect(err.message).toBe(`${field}: unknown field (did you mean '${meant}'?)`);
  });

  it('names an unknown key that resembles nothing without a suggestion, beside the other violations', () => {
    const err = refusal(DeclineTaskSchema, { reasonCode: 'bored', zebra: 1 });
    expect(err.violations).toEqual(expect.arrayContaining([{ field: 'zebra', reason: 'unknown field', code: 'unknown_field' }, expect.objectContaining({ field: 'reasonCode' })]));
    expect(err.violations).toHaveLength(2);
  });

  it('still takes the bodies it documents', () => {
    expect(parseBody(HeartbeatBodySchema, { instanceId: 'i-1' })).toEqual({ instanceId: 'i-1' });
    expect(parseBody(DeclineTaskSchema, { reasonCode: 'other', reason: 'busy' })).toEqual({ reasonCode: 'other', reason: 'busy' });
    expect(parseBody(RunResumeSchema, { runId: RUN, taskId: 't', output: { a: 1 } })).toMatchObject({ runId: RUN, taskId: 't' });
    expect(parseBody(ListTasksQuery, { capabilityId: 'HumanAgent.x', status: 'all' })).toMatchObject({ capabilityId: 'HumanAgent.x', status: [] });
  });
});

describe('a rejection\'s reason on flex routes', () => {
  it('hitl/resolve and run.resume take `reason` with decision reject', () => {
    expect(parseBody(HitlResolveSchema, { requestId: 'r', decision: 'rejected', reason: 'numbers look wrong' })).toMatchObject({ decision: 'reject', reason: 'numbers look wrong' });
    expect(parseBody(RunResumeSchema, { runId: RUN, decision: 'deny', reason: 'not now' })).toMatchObject({ decision: 'reject', reason: 'not now' });
  });

  it.each([
    ['hitl/resolve with approve', HitlResolveSchema, { requestId: 'r', decision: 'approve', reason: 'why not' }],
    ['hitl/resolve with an answer', HitlResolveSchema, { requestId: 'r', answer: '2024', reason: 'x' }],
    ['run.resume with approve', RunResumeSchema, { runId: RUN, decision: 'approved', reason: 'x' }],
    ['run.resume with an output', RunResumeSchema, { runId: RUN, output: { a: 1 }, reason: 'x' }],
  ])('refuses a reason on %s, naming reason', (_what, schema, body) => {
    expect(refusal(schema, body).violations).toEqual([{ field: 'reason', reason: 'is only for decision reject' }]);
  });

  it('refuses a reason that is not text or too long', () => {
    expect(refusal(HitlResolveSchema, { requestId: 'r', decision: 'reject', reason: 42 }).violations).toEqual([expect.objectContaining({ field: 'reason' })]);
    expect(refusal(RunResumeSchema, { runId: RUN, decision: 'reject', reason: 'x'.repeat(10_001) }).violations).toEqual([expect.objectContaining({ field: 'reason' })]);
  });
});
