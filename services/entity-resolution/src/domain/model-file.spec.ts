import { MODEL_FILE_FORMAT, MODEL_FILE_VERSION, parseModelFile, readModelFile } from './model-file.js';
import { DEFAULT_MODEL, UNCALIBRATED_MODEL } from './scoring.js';

const file = (model: unknown = DEFAULT_MODEL, over: Record<string, unknown> = {}) =>
  JSON.parse(JSON.stringify({ format: MODEL_FILE_FORMAT, version: MODEL_FILE_VERSION, fit: { fitted_at: '2026-11-28T00:00:00.000Z' }, model, ...over }));

/** The default model with `path` (dotted) set to `value` (undefined: removed). */
function withField(path: string, value: unknown) {
  const m = JSON.parse(JSON.stringify(DEFAULT_MODEL));
  const keys = path.split('.');
  let at = m;
  for (const k of keys.slice(0, -1)) at = at[k];
  if (value === undefined) delete at[keys.at(-1)!];
  else at[keys.at(-1)!] = value;
  return m;
}

describe('model files', () => {
  it('reads back the shipped model, calibrated or not, exactly', () => {
    for (const model of [DEFAULT_MODEL, UNCALIBRATED_MODEL]) {
      const parsed = parseModelFile(file(model));
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(parsed.file.model).toEqual(JSON.parse(JSON.stringify(model)));
    }
  });

  it.each([
    ['a file of another kind', file(DEFAULT_MODEL, { format: 'splink' }), 'format', 'af-er-model'],
    ['another version', file(DEFAULT_MODEL, { version: 2 }), 'version', 'version 1'],
    ['no model', { format: MODEL_FILE_FORMAT, version: 1, fit: {} }, 'model', ''],
    ['no ORG tables', file(withField('ORG', undefined)), 'model.ORG', ''],
    ['a probability above 1', file(withField('PERSON.m.last_name.exact', 1.5)), 'model.PERSON.m.last_name.exact', 'at most 1'],
    ['a probability of 0', file(withField('ORG.u.name.exact', 0)), 'model.ORG.u.name.exact', 'above 0'],
    ['a number as text', file(withField('PERSON.priorLog2Odds', '-12')), 'model.PERSON.priorLog2Odds', ''],
    ['a feature of the other type', file(withField('ORG.m.last_name', { exact: 0.9 })), 'model.ORG.m.last_name', 'not a feature of ORG records'],
    ['a misspelt level', file(withField('PERSON.u.state.sme', 0.1)), 'model.PERSON.u.state.sme', 'not a level of state'],
    ['a calibration level typo', file(withField('calibration.ORG.levels.legal_form.smae', 1)), 'model.calibration.ORG.levels.legal_form.smae', 'not a level of legal_form'],
    ['an unknown key', file(withField('PERSON.weights', {})), 'model.PERSON', 'weights'],
    ['a population of 0', file(withField('ORG.population', 0)), 'model.ORG.population', ''],
    ['a population knee at 0 records', file(withField('calibration.PERSON.populationKnee', { records: 0, coefficient: 1 })), 'model.calibration.PERSON.populationKnee.records', ''],
    ['a population knee without its coefficient', file(withField('calibration.ORG.populationKnee', { records: 120000 })), 'model.calibration.ORG.populationKnee.coefficient', ''],
    ['a near-name coefficient as text', file(withField('calibration.PERSON.tfFuzzy', '0.5')), 'model.calibration.PERSON.tfFuzzy', ''],
  ])('refuses %s, naming the field', (_what, json, field, reason) => {
    const parsed = parseModelFile(json);
    expect(parsed).toMatchObject({ ok: false, field });
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });

  it('reads a calibration with a population knee', () => {
    const parsed = parseModelFile(file(withField('calibration.PERSON.populationKnee', { records: 120000, coefficient: 0.4 })));
    expect(parsed.ok && parsed.file.model.calibration?.PERSON?.populationKnee).toEqual({ records: 120000, coefficient: 0.4 });
  });

  it("reads the shipped near-name coefficient, and a calibration written before it (no coefficient: the input weighs nothing)", () => {
    const parsed = parseModelFile(file());
    expect(parsed.ok && parsed.file.model.calibration?.PERSON?.tfFuzzy).toBe(DEFAULT_MODEL.calibration!.PERSON!.tfFuzzy);
    const older = parseModelFile(file(withField('calibration.ORG.tfFuzzy', undefined)));
    expect(older.ok && older.file.model.calibration?.ORG).not.toHaveProperty('tfFuzzy');
  });

  it('names the source of a file that is not JSON or not a model', () => {
    expect(() => readModelFile('{"format":', 'model.json')).toThrow(/^model\.json: not JSON/);
    expect(() => readModelFile(JSON.stringify(file(withField('minTfU', 2))), 'model.json')).toThrow('model.json: model.minTfU: must be a probability of at most 1');
    expect(readModelFile(JSON.stringify(file()), 'model.json').model.minTfU).toBe(DEFAULT_MODEL.minTfU);
  });
});
