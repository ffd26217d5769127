import { render, renderFilename, rowsOf, scalarsOf, toCsv } from './render.js';

const now = new Date('2026-03-04T05:06:07.000Z');

describe('rowsOf', () => {
  it('finds the rows of a result', () => {
    expect(rowsOf([{ a: 1 }, 2])).toEqual([{ a: 1 }, { value: 2 }]);
    expect(rowsOf({ results: [{ a: 1 }], count: 1 })).toEqual([{ a: 1 }]);
    expect(rowsOf({ a: 1 })).toEqual([{ a: 1 }]);
    expect(rowsOf('x')).toEqual([{ value: 'x' }]);
    expect(rowsOf(null)).toEqual([]);
  });
});

describe('render', () => {
  it('renders JSON', () => {
    expect(render({ a: 1 }, 'json')).toBe('{\n  "a": 1\n}\n');
  });

  it('renders CSV with quoting and formula protection', () => {
    expect(
      toCsv([
        { a: 'x,y', b: 'say "hi"' },
        { a: '=cmd()', c: { k: 1 } },
      ]),
    ).toBe('a,b,c\r\n"x,y","say ""hi""",\r\n\'=cmd(),,"{""k"":1}"\r\n');
    expect(toCsv([])).toBe('');
  });

  it('renders markdown tables, strings and records', () => {
    expect(render([{ name: 'A|B', n: 1 }], 'markdown', 'Report')).toBe(
      '# Report\n\n| name | n |\n| --- | --- |\n| A\\|B | 1 |\n',
    );
    expect(render('hello', 'markdown')).toBe('hello\n');
    expect(render({ summary: 'ok', rows2: [{ a: 1 }] }, 'markdown')).toBe(
      '## summary\n\nok\n\n## rows2\n\n| a |\n| --- |\n| 1 |\n\n',
    );
    expect(render([], 'markdown')).toBe('_No results._\n');
  });

  it('renders text', () => {
    expect(render('plain', 'text')).toBe('plain');
  });
});

describe('renderFilename', () => {
  const vars = {
    now,
    runId: 'r1',
    nodeId: 'save',
    extra: { topic: 'grants/2026', count: 3, nested: { a: 1 } },
  };

  it('fills the known variables', () => {
    expect(renderFilename('report_{date}_{run_id}.md', vars)).toEqual({
      ok: true,
      name: 'report_2026-03-04_r1.md',
    });
    expect(renderFilename('{today}', vars)).toEqual({ ok: true, name: '2026-03-04' });
    expect(renderFilename('{datetime}-{time}-{node_id}-{count}', vars)).toEqual({
      ok: true,
      name: '2026-03-04T05-06-07-05-06-07-save-3',
    });
  });

  it('never makes a path', () => {
    expect(renderFilename('{topic}.md', vars)).toEqual({ ok: true, name: 'grants-2026.md' });
    expect(renderFilename('..', vars)).toEqual({ ok: false, reason: 'renders to an empty file name' });
  });

  it('names unknown and object variables', () => {
    const r = renderFilename('{nope}_{nested}.md', vars);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain('unknown template variables {nope}, {nested}');
  });

  it('refuses empty and too long names', () => {
    expect(renderFilename('   ', vars).ok).toBe(false);
    expect(renderFilename('x'.repeat(256), vars)).toEqual({
      ok: false,
      reason: 'renders to a file name longer than 255 characters',
    });
  });
});

describe('scalarsOf', () => {
  it('keeps top-level scalars', () => {
    expect(scalarsOf({ a: 1, b: 'x', c: null, d: [1], e: true })).toEqual({ a: 1, b: 'x', e: true });
    expect(scalarsOf([1])).toEqual({});
  });
});

describe("an output block's sections", () => {
  const data = {
    text: 'Grants for River Trust',
    summary: 'Two grants.',
    sections: [
      { title: 'Rows', format: 'csv' as const, content: [{ id: 1, name: 'a' }] },
      { title: 'Notes', content: 'All good.' },
    ],
  };

  it('render as markdown: the text, the summary, then a heading per section in its format', () => {
    expect(render(data, 'markdown', 'Digest')).toBe(
      '# Digest\n\nGrants for River Trust\n\n## Summary\n\nTwo grants.\n\n## Rows\n\n```csv\nid,name\r\n1,a\n```\n\n## Notes\n\nAll good.\n',
    );
  });

  it('render as csv rows tagged with their section, and as json keyed by title', () => {
    expect(render(data, 'csv')).toBe('_section,id,name,value\r\nRows,1,a,\r\nNotes,,,All good.\r\n');
    expect(JSON.parse(render(data, 'json'))).toEqual({
      text: 'Grants for River Trust',
      summary: 'Two grants.',
      sections: { Rows: [{ id: 1, name: 'a' }], Notes: 'All good.' },
    });
  });
});
