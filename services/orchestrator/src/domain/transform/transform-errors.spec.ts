import { TransformError } from './transform-error.js';
import { transformData } from './transform-data.js';
import { parseTransformOperations } from './transform-operation.js';

const rows = [{ id: 1, name: 'a' }];

/** The TransformError thrown by `fn` (fails the test when nothing or something else is thrown). */
function caught(fn: () => unknown): TransformError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TransformError) return err;
    throw err;
  }
  throw new Error('expected a TransformError');
}

const failing = (operations: unknown) => caught(() => transformData({ data: rows }, { operations }));
const op = (o: Record<string, unknown>) => [o];

describe('transformData: bad params name the field and the reason', () => {
  it.each<[string, unknown, string, RegExp]>([
    ['operations not an array', 'sort', 'params.operations', /array of operations/],
    ['operation not an object', [42], 'params.operations[0]', /object with a type/],
    ['missing type', [{}], 'params.operations[0].type', /is required/],
    [
      'unknown type with a hint',
      op({ type: 'fitler' }),
      'params.operations[0].type',
      /did you mean 'filter'/,
    ],
    ['type not a string', op({ type: 3 }), 'params.operations[0].type', /unknown operation type 3/],
    // filter
    [
      'unknown operator with a hint',
      op({ type: 'filter', field: 'a', operator: 'gtee', value: 1 }),
      'params.operations[0].operator',
      /did you mean 'gte'/,
    ],
    [
      'missing operator',
      op({ type: 'filter', field: 'a', value: 1 }),
      'params.operations[0].operator',
      /is required/,
    ],
    [
      'in without an array',
      op({ type: 'filter', field: 'a', operator: 'in', value: 'x' }),
      'params.operations[0].value',
      /array/,
    ],
    [
      'not_in without an array',
      op({ type: 'filter', field: 'a', operator: 'not_in' }),
      'params.operations[0].value',
      /array/,
    ],
    [
      'gt against an object',
      op({ type: 'filter', field: 'a', operator: 'gt', value: {} }),
      'params.operations[0].value',
      /number or a string/,
    ],
    [
      'lte against a boolean',
      op({ type: 'filter', field: 'a', operator: 'lte', value: true }),
      'params.operations[0].value',
      /number or a string/,
    ],
    [
      'gte without a value',
      op({ type: 'filter', field: 'a', operator: 'gte' }),
      'params.operations[0].value',
      /number or a string/,
    ],
    [
      'eq without a value',
      op({ type: 'filter', field: 'a', operator: 'eq' }),
      'params.operations[0].value',
      /is required for 'eq'/,
    ],
    [
      'contains without a value',
      op({ type: 'filter', field: 'a', operator: 'contains' }),
      'params.operations[0].value',
      /is required/,
    ],
    [
      'exists with a non-boolean',
      op({ type: 'filter', field: 'a', operator: 'exists', value: 'yes' }),
      'params.operations[0].value',
      /true .* or false/,
    ],
    [
      'starts_with a number',
      op({ type: 'filter', field: 'a', operator: 'starts_with', value: 1 }),
      'params.operations[0].value',
      /string/,
    ],
    [
      'ends_with nothing',
      op({ type: 'filter', field: 'a', operator: 'ends_with' }),
      'params.operations[0].value',
      /string/,
    ],
    [
      'empty field',
      op({ type: 'filter', field: '', operator: 'eq', value: 1 }),
      'params.operations[0].field',
      /non-empty field path/,
    ],
    [
      'field not a string',
      op({ type: 'filter', field: 7, operator: 'eq', value: 1 }),
      'params.operations[0].field',
      /non-empty field path/,
    ],
    [
      'malformed field path',
      op({ type: 'filter', field: 'a..b', operator: 'eq', value: 1 }),
      'params.operations[0].field',
      /invalid field path.*expected a name/,
    ],
    [
      'unclosed bracket',
      op({ type: 'filter', field: 'a[0', operator: 'eq', value: 1 }),
      'params.operations[0].field',
      /invalid field path/,
    ],
    [
      'misspelt key with a hint',
      op({ type: 'filter', feild: 'a', operator: 'eq', value: 1 }),
      'params.operations[0].feild',
      /did you mean 'field'/,
    ],
    // sort
    [
      'upper-case direction',
      op({ type: 'sort', field: 'a', direction: 'DESC' }),
      'params.operations[0].direction',
      /did you mean 'desc'/,
    ],
    [
      'unknown direction',
      op({ type: 'sort', field: 'a', direction: 'up' }),
      'params.operations[0].direction',
      /one of asc, desc/,
    ],
    [
      'a key sort does not read',
      op({ type: 'sort', field: 'a', operator: 'eq' }),
      'params.operations[0].operator',
      /unknown key in this sort operation; allowed: type, field, direction/,
    ],
    // limit
    [
      'negative limit',
      op({ type: 'limit', value: -1 }),
      'params.operations[0].value',
      /non-negative integer/,
    ],
    [
      'fractional limit',
      op({ type: 'limit', value: 1.5 }),
      'params.operations[0].value',
      /non-negative integer/,
    ],
    ['limit as a string', op({ type: 'limit', value: '3' }), 'params.operations[0].value', /got "3"/],
    ['limit without a count', op({ type: 'limit' }), 'params.operations[0].value', /non-negative integer/],
    [
      'limit with both value and n',
      op({ type: 'limit', value: 1, n: 2 }),
      'params.operations[0].n',
      /either 'value' or 'n'/,
    ],
    ['negative n', op({ type: 'limit', n: -2 }), 'params.operations[0].n', /non-negative integer/],
    // deduplicate
    [
      'empty fields',
      op({ type: 'deduplicate', fields: [] }),
      'params.operations[0].fields',
      /non-empty array/,
    ],
    [
      'fields not an array',
      op({ type: 'deduplicate', fields: 'a' }),
      'params.operations[0].fields',
      /non-empty array/,
    ],
    [
      'field and fields',
      op({ type: 'deduplicate', field: 'a', fields: ['b'] }),
      'params.operations[0].fields',
      /not both/,
    ],
    [
      'a bad path in fields',
      op({ type: 'deduplicate', fields: ['a', 1] }),
      'params.operations[0].fields[1]',
      /field path/,
    ],
    // map
    ['map without mapping', op({ type: 'map' }), 'params.operations[0].mapping', /non-empty object/],
    ['empty mapping', op({ type: 'map', mapping: {} }), 'params.operations[0].mapping', /non-empty object/],
    [
      'mapping as an array',
      op({ type: 'map', mapping: ['a'] }),
      'params.operations[0].mapping',
      /non-empty object/,
    ],
    [
      'mapping onto __proto__',
      op({ type: 'map', mapping: JSON.parse('{"__proto__":"name"}') }),
      'params.operations[0].mapping.__proto__',
      /cannot be used/,
    ],
    [
      'mapping onto constructor',
      op({ type: 'map', mapping: { constructor: 'name' } }),
      'params.operations[0].mapping.constructor',
      /cannot be used/,
    ],
    [
      'mapping to a bad path',
      op({ type: 'map', mapping: { 'odd key': 5 } }),
      'params.operations[0].mapping["odd key"]',
      /field path/,
    ],
    // aggregate
    [
      'unknown aggregate operator',
      op({ type: 'aggregate', operator: 'median', field: 'a' }),
      'params.operations[0].operator',
      /count, sum, avg, min, max/,
    ],
    [
      'sum without a field',
      op({ type: 'aggregate', operator: 'sum' }),
      'params.operations[0].field',
      /the field to sum/,
    ],
    [
      'group by a wildcard',
      op({ type: 'aggregate', group_by: ['tags[*]'] }),
      'params.operations[0].group_by[0]',
      /no \[index\] or \[\*\]/,
    ],
    [
      'group by an index',
      op({ type: 'aggregate', value: 'tags[0]' }),
      'params.operations[0].value',
      /no \[index\]/,
    ],
    [
      'group by a reserved name',
      op({ type: 'aggregate', value: 'a.constructor' }),
      'params.operations[0].value',
      /cannot be used/,
    ],
    [
      'group_by not a path',
      op({ type: 'aggregate', group_by: 5 }),
      'params.operations[0].group_by',
      /field path or an array/,
    ],
    [
      'shorthand mixed with group_by',
      op({ type: 'aggregate', field: 'a', group_by: 'b' }),
      'params.operations[0].group_by',
      /not both .*'field'/,
    ],
    [
      'empty metrics',
      op({ type: 'aggregate', metrics: [] }),
      'params.operations[0].metrics',
      /non-empty array/,
    ],
    [
      'metric not an object',
      op({ type: 'aggregate', metrics: [1] }),
      'params.operations[0].metrics[0]',
      /must be an object/,
    ],
    [
      'metric without a field',
      op({ type: 'aggregate', metrics: [{ operator: 'avg' }] }),
      'params.operations[0].metrics[0].field',
      /the field to avg/,
    ],
    [
      'metric with an unknown key',
      op({ type: 'aggregate', metrics: [{ operator: 'count', name: 'n' }] }),
      'params.operations[0].metrics[0].name',
      /unknown key in this aggregate metric; allowed: operator, field, as/,
    ],
    [
      'metric without an operator',
      op({ type: 'aggregate', metrics: [{ field: 'a' }] }),
      'params.operations[0].metrics[0].operator',
      /is required/,
    ],
    [
      'two metrics with one name',
      op({
        type: 'aggregate',
        metrics: [
          { operator: 'sum', field: 'a' },
          { operator: 'sum', field: 'b' },
        ],
      }),
      'params.operations[0].metrics[1].as',
      /collides with 'sum'.*distinct 'as'/,
    ],
    [
      'metric named __proto__',
      op({ type: 'aggregate', metrics: [{ operator: 'count', as: '__proto__' }] }),
      'params.operations[0].metrics[0].as',
      /cannot be used/,
    ],
    [
      'metric named like a group',
      op({ type: 'aggregate', group_by: 'count' }),
      'params.operations[0].metrics[0].as',
      /collides with 'count'/,
    ],
    [
      'nested group paths that overwrite',
      op({ type: 'aggregate', group_by: ['a', 'a.b'] }),
      'params.operations[0].group_by[1]',
      /collides with 'a'/,
    ],
    [
      'shorthand group named like the metric',
      op({ type: 'aggregate', value: 'count' }),
      'params.operations[0].operator',
      /collides/,
    ],
  ])('%s', (_name, operations, field, reason) => {
    const err = failing(operations);
    expect(err.field).toBe(field);
    expect(err.reason).toMatch(reason);
    expect(err.message).toBe(`${field}: ${err.reason}`);
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.name).toBe('TransformError');
  });

  it('names the index of the bad operation and parses all operations before touching data', () => {
    const operations = [
      { type: 'filter', field: 'a', operator: 'eq', value: 1 },
      { type: 'sort', field: 'a' },
      { type: 'limit', value: -1 },
    ];
    // inputs.data is also bad, but the params are checked first: nothing runs half-way.
    const err = caught(() => transformData({ data: 'nope' }, { operations }));
    expect(err.field).toBe('params.operations[2].value');
  });

  it('rejects params that are not an object', () => {
    expect(caught(() => parseTransformOperations('x' as unknown as Record<string, unknown>)).field).toBe(
      'params',
    );
  });
});

describe('transformData: bad inputs.data', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['missing', {}, /got nothing/],
    ['null', { data: null }, /got null/],
    ['a string', { data: 'rows' }, /got a string/],
    ['a number', { data: 3 }, /got a number/],
    ['an object without results', { data: { results: 'x', rows: [] } }, /without a results array/],
  ])('%s', (_name, inputs, reason) => {
    const err = caught(() => transformData(inputs, { operations: [] }));
    expect(err.field).toBe('inputs.data');
    expect(err.reason).toMatch(reason);
  });
});
