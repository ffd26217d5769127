import { scanSqlPlaceholders, toPositionalSql, type SqlPlaceholders } from './database-placeholders.js';

function scan(sql: string): SqlPlaceholders {
  const result = scanSqlPlaceholders(sql);
  if ('problem' in result) throw new Error(result.problem);
  return result;
}

const names = (sql: string) => scan(sql).named.map((p) => p.name);

describe('scanSqlPlaceholders', () => {
  it('finds :name and $n placeholders', () => {
    expect(names('SELECT * FROM t WHERE a = :a AND b = :b_2 OR c = :a')).toEqual(['a', 'b_2', 'a']);
    expect(scan('SELECT $2, $1, $10, $1').positional).toEqual([1, 2, 10]);
  });

  it('ignores casts, string literals, quoted identifiers and comments', () => {
    const sql = `SELECT a::text, 'it''s :not' AS ":nope", E'back\\' :no', x -- :comment
      /* :block /* nested :x */ still :comment */ FROM t WHERE y = :yes`;
    expect(names(sql)).toEqual(['yes']);
    expect(scan(sql).positional).toEqual([]);
  });

  it('ignores dollar-quoted bodies and $ inside identifiers', () => {
    expect(names('SELECT $$ :a $1 $$, $fn$ :b $fn$, col$1 FROM t WHERE z = :c')).toEqual(['c']);
    expect(scan('SELECT $$ $1 $$, col$2 FROM t').positional).toEqual([]);
  });

  it('does not take array slices with spaces, := or a colon before a digit for placeholders', () => {
    expect(names('SELECT arr[1:2], arr[lo : hi], f(a := 1), 10:30 FROM t')).toEqual([]);
  });

  it.each([
    ["SELECT 'open", 'has an unterminated string literal'],
    ['SELECT "open', 'has an unterminated quoted identifier'],
    ['SELECT /* open', 'has an unterminated /* comment'],
    ['SELECT $tag$ open', 'has an unterminated dollar-quoted string $tag$'],
  ])('reports %s', (sql, problem) => {
    expect(scanSqlPlaceholders(sql)).toEqual({ problem });
  });
});

describe('toPositionalSql', () => {
  it('numbers names by first appearance and reuses the number of a repeated name', () => {
    const sql = 'SELECT * FROM t WHERE a = :x AND b = :y AND c = :x';
    expect(toPositionalSql(sql, scan(sql).named)).toEqual({
      text: 'SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $1',
      names: ['x', 'y'],
    });
  });

  it('leaves text without placeholders unchanged', () => {
    expect(toPositionalSql('SELECT 1', [])).toEqual({ text: 'SELECT 1', names: [] });
  });
});
