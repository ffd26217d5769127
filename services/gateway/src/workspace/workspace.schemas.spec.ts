import { bytesOf, ExportTableBody, splitFilters, UploadBody } from './workspace.schemas.js';
import { attachment, isText } from './workspace.views.js';

describe('UploadBody', () => {
  it('takes text or base64 content, exactly one', () => {
    expect(UploadBody.parse({ title: 'a.md', content_type: 'text/markdown', content: '# a' }).content).toBe(
      '# a',
    );
    expect(
      UploadBody.safeParse({
        title: 'a.md',
        content_type: 'text/markdown',
        content: 'x',
        content_base64: 'eA==',
      }).success,
    ).toBe(false);
    expect(
      UploadBody.safeParse({ title: 'a.md', content_type: 'text/markdown' }).error?.issues[0]?.path,
    ).toEqual(['content']);
    expect(
      UploadBody.safeParse({ title: 'a', content_type: 'image/png', content_base64: 'not base64!' }).success,
    ).toBe(false);
    expect(UploadBody.safeParse({ title: '', content_type: 'text/plain', content: 'x' }).success).toBe(false);
  });

  it('turns either into bytes', () => {
    expect(Buffer.from(bytesOf({ content: 'hé' })).toString('utf8')).toBe('hé');
    expect(Buffer.from(bytesOf({ content_base64: 'TVo=' })).toString('latin1')).toBe('MZ');
  });
});

describe('attachment', () => {
  it('names the file safely in both forms', () => {
    expect(attachment('report "final".md')).toBe(
      `attachment; filename="report _final_.md"; filename*=UTF-8''report%20%22final%22.md`,
    );
    expect(attachment('résumé.md')).toBe(
      `attachment; filename="r_sum_.md"; filename*=UTF-8''r%C3%A9sum%C3%A9.md`,
    );
  });
});

describe('isText', () => {
  it('knows text types', () => {
    expect(isText('text/csv')).toBe(true);
    expect(isText('application/json')).toBe(true);
    expect(isText('image/png')).toBe(false);
  });
});

describe('splitFilters', () => {
  it('takes filter.<column> keys apart from the rest of the query', () => {
    expect(splitFilters({ page_size: '2', 'filter.name': 'Hill fund', 'filter.id': '1' })).toEqual({
      rest: { page_size: '2' },
      filters: [
        { column: 'name', value: 'Hill fund' },
        { column: 'id', value: '1' },
      ],
    });
    expect(splitFilters(undefined)).toEqual({ rest: {}, filters: [] });
  });

  it('refuses a filter without a column or given twice, naming it', () => {
    expect(() => splitFilters({ 'filter.': 'x' })).toThrow(/filter\.: names no column/);
    expect(() => splitFilters({ 'filter.id': ['1', '2'] })).toThrow(/filter\.id: must be given once/);
  });
});

describe('ExportTableBody', () => {
  it('takes csv, json, markdown or xlsx and refuses anything else under format', () => {
    expect(ExportTableBody.parse({ format: 'xlsx', filters: { id: 1 } })).toEqual({ format: 'xlsx', filters: { id: 1 } });
    expect(ExportTableBody.safeParse({ format: 'pdf' }).error?.issues[0]?.path).toEqual(['format']);
  });
});
