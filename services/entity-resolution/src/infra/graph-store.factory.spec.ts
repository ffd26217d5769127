import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODEL_FILE_FORMAT, MODEL_FILE_VERSION } from '../domain/model-file.js';
import { DEFAULT_MODEL } from '../domain/scoring.js';
import { deploymentModel } from './graph-store.factory.js';

const dir = mkdtempSync(join(tmpdir(), 'er-model-'));
const write = (name: string, body: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
  return path;
};

describe('ER_MODEL_FILE', () => {
  it('unset: the shipped model', () => {
    expect(deploymentModel({})).toBe(DEFAULT_MODEL);
  });

  it("set: the file's model", () => {
    const model = { ...DEFAULT_MODEL, minTfU: 0.0002 };
    const path = write('good.json', { format: MODEL_FILE_FORMAT, version: MODEL_FILE_VERSION, fit: {}, model });
    expect(deploymentModel({ ER_MODEL_FILE: path })).toEqual(JSON.parse(JSON.stringify(model)));
  });

  it('a missing, non-JSON or bad file fails naming the variable, the file, the field and the reason', () => {
    expect(() => deploymentModel({ ER_MODEL_FILE: join(dir, 'none.json') })).toThrow(`ER_MODEL_FILE: cannot read ${join(dir, 'none.json')} (ENOENT)`);
    const junk = write('junk.json', 'model: yes');
    expect(() => deploymentModel({ ER_MODEL_FILE: junk })).toThrow(`ER_MODEL_FILE: ${junk}: not JSON`);
    const bad = write('bad.json', { format: MODEL_FILE_FORMAT, version: MODEL_FILE_VERSION, fit: {}, model: { ...DEFAULT_MODEL, minTfU: -1 } });
    expect(() => deploymentModel({ ER_MODEL_FILE: bad })).toThrow(`ER_MODEL_FILE: ${bad}: model.minTfU: must be a probability above 0`);
  });
});
