import { folderNames } from './workspace.js';

describe('folderNames', () => {
  it('splits paths', () => {
    expect(folderNames('/Reports/ 2026 /')).toEqual({ ok: true, names: ['Reports', '2026'] });
  });
  it('refuses empty and dot names', () => {
    expect(folderNames('//')).toEqual({ ok: false, reason: 'names no folder' });
    expect(folderNames('a/../b')).toEqual({ ok: false, reason: '".." is not a folder name' });
    expect(folderNames('x'.repeat(201)).ok).toBe(false);
  });
});
