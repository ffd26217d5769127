import { AppError, type ServiceKit } from '@af/service-kit';
import { configurePlanLimits } from '@af/plan';
import { Playbooks } from './playbooks.js';

// compile() is pure: it never touches the kit.
const playbooks = new Playbooks({} as ServiceKit);

const yaml = `
id: two-steps
name: Two steps
version: "1.0"
inputs:
  - name: q
    type: string
    required: true
steps:
  - name: first
    step_type: tool
    action: call_connector
    connector: api
    endpoint: search
    inputs: { q: "{q}" }
    output_key: found
  - name: second
    step_type: tool
    action: call_connector
    connector: api
    endpoint: detail
    inputs: { id: "{first.results[0].id}" }
`;

describe('Playbooks.compile', () => {
  it('returns a PlanGraph with data dependencies', async () => {
    const { plan } = await playbooks.compile(yaml);
    expect(plan.nodes.map((n) => [n.id, n.kind, n.dependsOn])).toEqual([
      ['first', 'tool', []],
      ['second', 'tool', ['first']],
    ]);
    expect(plan.nodes[0]!.params).toMatchObject({ connector: 'api', endpoint: 'search' });
    expect(plan.inputs).toEqual([expect.objectContaining({ name: 'q', required: true })]);
  });

  it.each([
    ['', 'yaml'],
    ['   ', 'yaml'],
  ])('rejects empty input %p naming %s', async (input, field) => {
    const err = await rejected(playbooks.compile(input));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations[0]!.field).toBe(field);
  });

  it('rejects malformed YAML with a position', async () => {
    const err = await rejected(playbooks.compile('steps:\n  - name: [oops\n'));
    expect(err.violations[0]!.code).toBe('invalid_yaml');
    expect(err.message).toMatch(/line \d+/);
  });

  it('names the step and field of an unknown reference', async () => {
    const err = await rejected(playbooks.compile(yaml.replace('{first.results[0].id}', '{frist.results[0].id}')));
    expect(err.violations).toEqual([expect.objectContaining({ field: 'steps[1].inputs.id', code: 'nonexistent_step' })]);
  });

  it('names an unknown step field once in the message, with its line', async () => {
    const err = await rejected(playbooks.compile(yaml.replace('    output_key: found', '    output_key: found\n    depends_on: [x]')));
    expect(err.violations).toEqual([expect.objectContaining({ field: 'steps[0].depends_on', code: 'unknown_field' })]);
    expect(err.message).toBe("steps[0].depends_on: unknown field 'depends_on' (line 17)");
  });

  it('rejects an oversized document', async () => {
    expect((await rejected(playbooks.compile(`# ${'x'.repeat(1024 * 1024)}`))).message).toContain('larger than');
  });
});

async function rejected(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('Playbooks.compile size limits', () => {
  const chain = (n: number) =>
    ['id: chain', 'name: Chain', 'steps:', ...Array.from({ length: n }, (_, i) => [`  - name: s${i}`, '    step_type: tool', '    action: transform_data', '    inputs: { data: [] }', '    operations: [{ type: limit, value: 1 }]']).flat()].join('\n');

  afterEach(() => configurePlanLimits({ maxNodes: 1_000 }));

  it('refuses a playbook over PLAN_MAX_NODES with one violation naming steps and the limit', async () => {
    configurePlanLimits({ maxNodes: 50 });
    const err = await rejected(playbooks.compile(chain(51)));
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toBe('steps: 51 steps (parallel_steps included); the limit is 50 (PLAN_MAX_NODES)');
    expect(err.violations).toEqual([{ field: 'steps', reason: '51 steps (parallel_steps included); the limit is 50 (PLAN_MAX_NODES)', code: 'too_many_nodes' }]);
    expect((await playbooks.compile(chain(50))).plan.nodes).toHaveLength(50);
  });

  it('keeps at most 100 violations, the last saying how many more there were', async () => {
    const bad = ['id: bad', 'name: Bad', 'steps:', ...Array.from({ length: 300 }, (_, i) => [`  - name: s${i}`, '    step_type: tool', '    action: transform_data', `    inputs: { data: "{missing${i}.x}" }`, '    operations: [{ type: limit, value: 1 }]']).flat()].join('\n');
    const err = await rejected(playbooks.compile(bad));
    expect(err.violations).toHaveLength(100);
    expect(err.violations.at(-1)!.reason).toMatch(/^… and \d+ more$/);
    expect(err.message.length).toBeLessThanOrEqual(1_000);
  });
});
