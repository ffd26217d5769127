import { applyEdits } from './patch.js';

describe('applyEdits', () => {
  it('applies edits in order', () => {
    const r = applyEdits('# Title\nbody\n', [
      { operation: 'append', content: 'end\n' },
      { operation: 'prepend', content: '---\n' },
      { operation: 'replace', target: 'body', content: 'BODY' },
      { operation: 'insert_after', target: '# Title', content: ' (v2)' },
      { operation: 'insert_before', target: 'end', content: '> ' },
      { operation: 'delete', target: '---\n' },
    ]);
    expect(r).toEqual({ ok: true, text: '# Title (v2)\nBODY\n> end\n', applied: 6 });
  });

  it('appends on a new line', () => {
    expect(applyEdits('a', [{ operation: 'append', content: 'b' }])).toEqual({
      ok: true,
      text: 'a\nb',
      applied: 1,
    });
  });

  it('names the failing edit', () => {
    expect(
      applyEdits('abc', [
        { operation: 'append', content: 'x' },
        { operation: 'replace', target: 'zzz', content: 'y' },
      ]),
    ).toEqual({
      ok: false,
      field: 'inputs.edits[1].target',
      reason: '"zzz" is not in the document',
    });
    expect(applyEdits('abc', [{ operation: 'delete' }])).toEqual({
      ok: false,
      field: 'inputs.edits[0].target',
      reason: 'is required for delete',
    });
    expect(applyEdits('abc', [{ operation: 'explode' }])).toMatchObject({
      ok: false,
      field: 'inputs.edits[0].operation',
    });
    expect(applyEdits('abc', [])).toMatchObject({ ok: false, field: 'inputs.edits' });
  });
});
