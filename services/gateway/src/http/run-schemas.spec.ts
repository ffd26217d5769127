import { AppError } from '@af/service-kit';
import { ListRunsQuery, StartRunSchema } from './schemas.js';
import { deprecatedField, parseBody } from './validation.js';

function violations(body: unknown) {
  try {
    parseBody(StartRunSchema, body);
  } catch (e) {
    if (e instanceof AppError) return e.violations;
    throw e;
  }
  throw new Error('expected a 400');
}

describe('POST /runs body', () => {
  it.each([
    [{ yaml: 'id: x' }],
    [{ playbook_id: 'x', playbook_revision: 2 }],
    [{ workflow_steps: [{ id: 'a' }] }],
    [{ plan: { nodes: [] } }],
  ])('takes exactly one source: %p', (body) => {
    expect(() => parseBody(StartRunSchema, body)).not.toThrow();
  });

  it('names each source given beside the first', () => {
    expect(violations({ yaml: 'id: x', workflow_steps: [{ id: 'a' }], plan: {} })).toEqual([
      expect.objectContaining({ field: 'workflow_steps', reason: expect.stringContaining('not both yaml and workflow_steps') }),
      expect.objectContaining({ field: 'plan' }),
    ]);
  });

  it('asks for a source when none is given', () => {
    expect(violations({ inputs: {} })).toEqual([expect.objectContaining({ field: 'yaml', reason: expect.stringContaining('exactly one of yaml, playbook_id, workflow_steps, plan') })]);
  });

  it('refuses unknown fields by name, with the field probably meant', () => {
    expect(violations({ yaml: 'id: x', input: {}, colour: 'red' })).toEqual([
      { field: 'input', reason: "unknown field (did you mean 'inputs'?)", code: 'unknown_field', suggestedFix: 'inputs' },
      { field: 'colour', reason: 'unknown field', code: 'unknown_field' },
    ]);
  });

  it('refuses an empty workflow and a revision without playbook_id', () => {
    expect(violations({ workflow_steps: [] })[0]).toMatchObject({ field: 'workflow_steps' });
    expect(violations({ yaml: 'id: x', playbook_revision: 1 })[0]).toMatchObject({ field: 'playbook_revision' });
  });
});

describe('GET /runs query', () => {
  function queryViolations(query: unknown) {
    try {
      parseBody(ListRunsQuery, query);
    } catch (e) {
      if (e instanceof AppError) return e.violations;
      throw e;
    }
    throw new Error('expected a 400');
  }

  it('takes an agent profile id beside the other filters', () => {
    expect(parseBody(ListRunsQuery, { agent_profile_id: 'np-1', status: 'running,failed', page_size: '20' })).toEqual({
      agent_profile_id: 'np-1',
      status: ['running', 'failed'],
      task_status: [],
      page_size: 20,
    });
    expect(parseBody(ListRunsQuery, {}).agent_profile_id).toBeUndefined();
  });

  it('refuses an empty or overlong agent profile id, naming the field', () => {
    expect(queryViolations({ agent_profile_id: '' })).toEqual([expect.objectContaining({ field: 'agent_profile_id' })]);
    expect(queryViolations({ agent_profile_id: 'x'.repeat(201) })).toEqual([expect.objectContaining({ field: 'agent_profile_id' })]);
  });

  it('takes a playbook id, and refuses an empty or overlong one naming the field', () => {
    expect(parseBody(ListRunsQuery, { playbook_id: 'console-e2e' }).playbook_id).toBe('console-e2e');
    expect(queryViolations({ playbook_id: '' })).toEqual([expect.objectContaining({ field: 'playbook_id' })]);
    expect(queryViolations({ playbook_id: 'p'.repeat(201) })).toEqual([expect.objectContaining({ field: 'playbook_id' })]);
  });

  it('refuses an unknown status, naming the field', () => {
    expect(queryViolations({ status: 'runing' })[0]).toMatchObject({ field: expect.stringMatching(/^status/) });
  });
});

describe('deprecatedField', () => {
  const response = () => {
    const headers: Record<string, string> = {};
    return { headers, setHeader: (k: string, v: string) => void (headers[k] = v) };
  };

  it('moves the old name to the new one and says so in headers', () => {
    const res = response();
    expect(deprecatedField({ playbook: 'id: x', inputs: {} }, 'playbook', 'yaml', res as never)).toEqual({ yaml: 'id: x', inputs: {} });
    expect(res.headers).toEqual({
      Deprecation: '@1795737600',
      Warning: `299 - "body field 'playbook' is deprecated: send 'yaml' instead"`,
      Link: '</api/docs>; rel="deprecation"; type="application/json"',
    });
  });

  it('leaves a body without the old name alone, and refuses both names', () => {
    const res = response();
    const body = { yaml: 'id: x' };
    expect(deprecatedField(body, 'playbook', 'yaml', res as never)).toBe(body);
    expect(res.headers).toEqual({});
    expect(() => deprecatedField({ yaml: 'a', playbook: 'b' }, 'playbook', 'yaml', res as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', violations: [expect.objectContaining({ field: 'playbook' })] }));
  });
});
