import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateConnector } from './connector-validate.js';

const fixtures = join(__dirname, '../../test/fixtures');
const seed = (name: string) =>
  join(__dirname, '../../../connectors/src/fixtures', name);

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) } };
}

describe('af connector validate', () => {
  it('reports a valid connector with its endpoints', async () => {
    const t = io();
    const file = join(fixtures, 'filings.connector.yaml');
    expect(await validateConnector(file, t.io)).toBe(0);
    expect(t.out).toEqual([`${file}: valid rest_api connector "filings-api" with 1 endpoint (search)`]);
    expect(t.err).toEqual([]);
  });

  it('accepts every seed example, with warnings where the seed has them', async () => {
    for (const name of [
      'fec-contributions.connector.yaml',
      'seed-existing-tool.connector.yaml',
      'seed-graphql.connector.yaml',
    ]) {
      const t = io();
      expect(await validateConnector(seed(name), t.io)).toBe(0);
      for (const line of t.err) expect(line).toMatch(/^.+:\d+:\d+: warning: /);
    }
  });

  it('prints each error as file:line:column: field: reason and fails', async () => {
    const t = io();
    const file = join(fixtures, 'broken.connector.yaml');
    expect(await validateConnector(file, t.io)).toBe(1);
    expect(t.err).toEqual([
      `${file}:1:5: id: must be kebab-case, e.g. fec-contributions`,
      `${file}:5:13: connection.base_url: must use http or https, not "ftp"`,
      `${file}:8:11: endpoints.search.path: must start with "/"`,
      `${file}:10:7: endpoints.search.respone_mapping: is not a known field; did you mean "response_mapping"?`,
      `4 errors in ${file}`,
    ]);
    expect(t.out).toEqual([]);
  });

  it('reports YAML syntax errors and unreadable files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'af-validate-'));
    const file = join(dir, 'syntax.yaml');
    writeFileSync(file, 'id: demo\nname: [unclosed\n');
    const t = io();
    expect(await validateConnector(file, t.io)).toBe(1);
    expect(t.err[0]).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: yaml: `));
    await expect(validateConnector(join(fixtures, 'missing.yaml'), t.io)).rejects.toThrow(
      /cannot read .*missing\.yaml: ENOENT/,
    );
  });
});
