import { identifierProblem, quoteIdent, workspaceSchemaName, workspaceSqlTable } from './identifiers.js';

describe('identifierProblem', () => {
  it.each(['grants', 'a', 'donor_2024', 'x'.repeat(63)])('accepts %s', (name) => {
    expect(identifierProblem(name)).toBeUndefined();
  });

  it.each([
    ['', 'non-empty'],
    ['Grants', 'not a valid identifier'],
    ['_source', 'not a valid identifier'],
    ['1table', 'not a valid identifier'],
    ['x'.repeat(64), 'not a valid identifier'],
    ['a"; DROP TABLE users; --', 'not a valid identifier'],
    ['a b', 'not a valid identifier'],
    ['pg_class', 'reserved'],
  ])('refuses %j', (name, reason) => {
    expect(identifierProblem(name)).toContain(reason);
  });

  it('refuses non-strings', () => {
    expect(identifierProblem(42)).toBe('must be a non-empty string');
    expect(identifierProblem(undefined)).toBe('must be a non-empty string');
  });
});

describe('quoteIdent', () => {
  it('double-quotes and escapes quotes', () => {
    expect(quoteIdent('grants')).toBe('"grants"');
    expect(quoteIdent('a"b')).toBe('"a""b"');
  });
});

describe('workspaceSchemaName', () => {
  it('is a fixed safe name per user', () => {
    const a = workspaceSchemaName('user-1');
    expect(a).toMatch(/^ws_[0-9a-f]{24}$/);
    expect(workspaceSchemaName('user-1')).toBe(a);
    expect(workspaceSchemaName('user-2')).not.toBe(a);
    expect(identifierProblem(workspaceSchemaName('"; drop'))).toBeUndefined();
  });
});

describe('workspaceSqlTable', () => {
  it('uses the table name in the default workspace and prefixes others', () => {
    expect(workspaceSqlTable('default', 'grants')).toBe('grants');
    expect(workspaceSqlTable('research', 'grants')).toBe('research__grants');
  });

  it('stays within 63 bytes', () => {
    const t = workspaceSqlTable('w'.repeat(40), 't'.repeat(40));
    expect(t.length).toBeLessThanOrEqual(63);
    expect(identifierProblem(t)).toBeUndefined();
    expect(workspaceSqlTable('w'.repeat(40), 'u'.repeat(40))).not.toBe(t);
  });
});
