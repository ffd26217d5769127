import { AppError, type ServiceKit } from '@af/service-kit';
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
  it('returns a PlanGraph with data dependencies', () => {
    const { plan } = playbooks.compile(yaml);
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
  ])('rejects empty input %p naming %s', (input, field) => {
    const err = thrown(() => playbooks.compile(input));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations[0]!.field).toBe(field);
  });

  it('rejects malformed YAML with a position', () => {
    const err = thrown(() => playbooks.compile('steps:\n  - name: [oops\n'));
    expect(err.violations[0]!.code).toBe('invalid_yaml');
    expect(err.message).toMatch(/line \d+/);
  });

  it('names the step and field of an unknown reference', () => {
    const err = thrown(() => playbooks.compile(yaml.replace('{first.results[0].id}', '{frist.results[0].id}')));
    expect(err.violations).toEqual([expect.objectContaining({ field: 'steps[1].inputs.id', code: 'nonexistent_step' })]);
  });

  it('rejects an oversized document', () => {
    expect(thrown(() => playbooks.compile(`# ${'x'.repeat(1024 * 1024)}`)).message).toContain('larger than');
  });
});

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}
