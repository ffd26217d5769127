import { parseYamlSource } from './yaml-source.js';

describe('parseYamlSource', () => {
  it('parses plain documents and locates issues lazily', () => {
    const r = parseYamlSource('id: x\nsteps:\n  - name: a\n    inputs:\n      q: "{b.c}"\n');
    if (!r.ok) throw new Error('expected ok');
    expect(r.source.value).toEqual({ id: 'x', steps: [{ name: 'a', inputs: { q: '{b.c}' } }] });
    expect(r.source.locate({ code: 'c', field: 'steps[0].inputs.q', message: 'm' })).toMatchObject({ line: 5, column: 10 });
    // A missing field points at its nearest parent.
    expect(r.source.locate({ code: 'c', field: 'steps[0].missing', message: 'm' })).toMatchObject({ line: 3 });
  });

  it('keeps a scalar as written (version 1.0 is not 1)', () => {
    const r = parseYamlSource('version: 1.0\n');
    if (!r.ok) throw new Error('expected ok');
    expect(r.source.value).toEqual({ version: 1 });
    expect(r.source.sourceText(['version'])).toBe('1.0');
  });

  it('reports syntax errors with line and column', () => {
    const r = parseYamlSource('a: 1\nb: [1, 2\nc: 3\n');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues[0]).toMatchObject({ code: 'invalid_yaml' });
    expect(r.issues[0]!.line).toBeGreaterThanOrEqual(2);
  });

  it('rejects duplicate keys', () => {
    const r = parseYamlSource('id: a\nid: b\n');
    expect(r.ok).toBe(false);
  });

  it('caps alias expansion (billion laughs) instead of exhausting memory', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    const r = parseYamlSource(lines.join('\n'));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues[0]!.code).toBe('invalid_yaml');
  });

  it('reads & and * inside quoted strings as text', () => {
    const r = parseYamlSource('q: "fish & chips *today*"\n');
    expect(r.ok && r.source.value).toEqual({ q: 'fish & chips *today*' });
  });
});
