import { sqlRows } from './sql.js';

describe('sqlRows', () => {
  const fake = (result: unknown) => ({ query: async () => result });

  it('returns rows of a SELECT/INSERT as they are', async () => {
    expect(await sqlRows(fake([{ id: 1 }, { id: 2 }]), 'SELECT')).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('unwraps the [rows, affected] pair of UPDATE/DELETE … RETURNING', async () => {
    expect(await sqlRows(fake([[{ id: 1 }], 1]), 'UPDATE')).toEqual([{ id: 1 }]);
    expect(await sqlRows(fake([[], 0]), 'UPDATE')).toEqual([]);
  });

  it('answers [] for results without rows', async () => {
    expect(await sqlRows(fake(undefined), 'CREATE')).toEqual([]);
  });
});
