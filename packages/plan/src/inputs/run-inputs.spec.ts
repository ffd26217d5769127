import { checkRunInputs, compilePlaybook, inputValueMatches, PlanGraphSchema, planFromWire, planToWire, type PlanGraph } from '../index.js';

function playbookPlan(inputs: string): PlanGraph {
  const r = compilePlaybook(`id: p\nname: P\ninputs:\n${inputs}steps:\n  - { name: s, step_type: tool, action: search_web, inputs: { query: x } }\n`);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

const plan = playbookPlan(`  - { name: company, type: entity_name, required: true }
  - { name: limit, type: number, default: 10 }
  - { name: since, type: date }
  - { name: sources, type: list, enum: [web, news, filings] }
  - { name: depth, type: string, enum: [quick, deep], default: quick }
`);

describe('checkRunInputs: a playbook run', () => {
  it('accepts well-typed inputs and leaves out what has a default', () => {
    expect(checkRunInputs(plan, { company: 'Acme', since: '2024-01-31', sources: ['web', 'news'] })).toEqual([]);
    expect(checkRunInputs(plan, { company: 'Acme', limit: 5, depth: 'deep', since: '2024-01-31T10:00:00Z' })).toEqual([]);
  });

  it('a missing required input names inputs.<name>', () => {
    expect(checkRunInputs(plan, {})).toEqual([{ field: 'inputs.company', reason: 'is required (a string (an entity name))', code: 'missing_required' }]);
    expect(checkRunInputs(plan, { company: null })[0]).toMatchObject({ field: 'inputs.company', code: 'missing_required' });
  });

  it.each([
    ['company', 42, 'must be a string (an entity name), not a number'],
    ['limit', '10', 'must be a number, not the string "10"'],
    ['limit', Number.NaN, 'must be a number, not a number'],
    ['since', 'last tuesday', 'must be a date (ISO 8601, e.g. 2024-01-31), not the string "last tuesday"'],
    ['since', 20240131, 'must be a date (ISO 8601, e.g. 2024-01-31), not a number'],
    ['sources', 'web', 'must be a list, not the string "web"'],
    ['depth', ['quick'], 'must be a string, not a list'],
  ])('%s = %j is refused: %s', (name, value, reason) => {
    expect(checkRunInputs(plan, { company: 'Acme', [name]: value })).toEqual([{ field: `inputs.${name}`, reason, code: 'invalid_type' }]);
  });

  it('enum values: a scalar, and each element of a list, with a did-you-mean', () => {
    expect(checkRunInputs(plan, { company: 'Acme', depth: 'deap' })).toEqual([
      { field: 'inputs.depth', reason: 'must be one of "quick", "deep", not "deap"', code: 'invalid_enum', suggestedFix: 'deep' },
    ]);
    expect(checkRunInputs(plan, { company: 'Acme', sources: ['web', 'nwes', 'blogs'] })).toEqual([
      { field: 'inputs.sources[1]', reason: 'must be one of "web", "news", "filings", not "nwes"', code: 'invalid_enum', suggestedFix: 'news' },
      { field: 'inputs.sources[2]', reason: 'must be one of "web", "news", "filings", not "blogs"', code: 'invalid_enum' },
    ]);
  });

  it('unknown inputs are refused, with the nearest declared one', () => {
    expect(checkRunInputs(plan, { company: 'Acme', compny: 'x', zzz: 1 })).toEqual([
      { field: 'inputs.compny', reason: "is not an input of this playbook (its inputs: company, limit, since, sources, depth); did you mean 'company'?", code: 'unknown_input', suggestedFix: 'company' },
      { field: 'inputs.zzz', reason: 'is not an input of this playbook (its inputs: company, limit, since, sources, depth)', code: 'unknown_input' },
    ]);
    const none = playbookPlan('  - { name: only }\n');
    none.inputs.length = 0;
    expect(checkRunInputs(none, { x: 1 })).toEqual([{ field: 'inputs.x', reason: 'is not an input of this playbook (it declares no inputs)', code: 'unknown_input' }]);
  });

  it('reports every problem at once', () => {
    expect(checkRunInputs(plan, { limit: 'ten', extra: true }).map((i) => i.field)).toEqual(['inputs.company', 'inputs.limit', 'inputs.extra']);
  });

  it('declarations (enum included) survive the wire', () => {
    const back = PlanGraphSchema.parse(planFromWire(planToWire(plan)));
    expect(back.inputs).toEqual(plan.inputs);
    expect(checkRunInputs(back, { company: 'Acme', depth: 'x' })[0]!.code).toBe('invalid_enum');
  });
});

describe('checkRunInputs: plans from other front-ends', () => {
  it('only checks required inputs (their declarations describe, they do not constrain)', () => {
    const flex: PlanGraph = { ...plan, provenance: { frontEnd: 'planner' }, inputs: [{ name: 'brief', type: 'object', required: true }] };
    expect(checkRunInputs(flex, { brief: 'text', other: 1 })).toEqual([]);
    expect(checkRunInputs(flex, {})).toEqual([{ field: 'inputs.brief', reason: 'is required (object)', code: 'missing_required' }]);
    const raw: PlanGraph = { ...plan, provenance: undefined, inputs: [] };
    expect(checkRunInputs(raw, { anything: 1 })).toEqual([]);
  });
});

describe('input declarations are checked when the playbook compiles', () => {
  const errors = (inputs: string) => {
    const r = compilePlaybook(`id: p\nname: P\ninputs:\n${inputs}steps:\n  - { name: s, step_type: tool, action: search_web, inputs: { query: x } }\n`);
    return r.ok ? [] : r.errors.map((e) => [e.code, e.field]);
  };
  it('enum values of the type, a default among them', () => {
    expect(errors('  - { name: n, type: number, enum: [1, two] }\n')).toEqual([['invalid_field', 'inputs[0].enum[1]']]);
    expect(errors('  - { name: d, enum: [a, b], default: c }\n')).toEqual([['invalid_field', 'inputs[0].default']]);
    expect(errors('  - { name: l, type: list, enum: [a, 1], default: [a, b] }\n')).toEqual([['invalid_field', 'inputs[0].default']]);
    expect(errors('  - { name: d, enum: [] }\n')).toEqual([['invalid_field', 'inputs[0].enum']]);
  });

  it('inputValueMatches', () => {
    expect(inputValueMatches('date', '2024-02-30')).toBe(true); // Date.parse rolls over; the shape is what is checked
    expect(inputValueMatches('date', 'soon')).toBe(false);
    expect(inputValueMatches('entity_name', 'Acme')).toBe(true);
    expect(inputValueMatches('list', [])).toBe(true);
  });
});
