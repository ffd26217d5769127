import { calibrationSamples, fitDeploymentModel, MIN_EM_RECORDS } from './fit-deployment.js';
import { generateRecords, type LabelledRecord } from './generator.js';
import { clusterQuality } from './metrics.js';
import { MODEL_FILE_FORMAT, MODEL_FILE_VERSION, parseModelFile } from './model-file.js';
import { normaliseRecord } from './normalise.js';
import { Resolver } from './resolver.js';
import { DEFAULT_MODEL, UNCALIBRATED_MODEL, type ScoringModel } from './scoring.js';

/** A quick EM for the tests that only look at which parts were fitted. */
const quick = { em: { sample: 3_000, randomPairs: 10_000, iterations: 10 } };
/** A lighter EM than `af er fit`'s (200,000 random pairs, 40 iterations) for the held-out quality test: a third of the time. */
const lighter = { sample: 5_000, randomPairs: 20_000, iterations: 20 };
const labelled = (records: number, seed: number) => [...generateRecords({ records, seed, corruption: 'medium' })];
const normalised = (raw: readonly LabelledRecord[]) => raw.map((r) => normaliseRecord(r).record);

function quality(model: ScoringModel, raw: readonly LabelledRecord[]) {
  const resolver = new Resolver({ model });
  const records = normalised(raw);
  resolver.primeFrequencies(records);
  for (const r of records) resolver.add(r);
  const entityOf = new Map(raw.map((r) => [r.recordId, r.entityId]));
  return clusterQuality(resolver.clusters().map((c) => ({ ...c, entityId: entityOf.get(c.recordId)! })));
}

describe('fitting the model to a deployment’s records', () => {
  const train = labelled(5_000, 31);
  const entityOf = new Map(train.map((r) => [r.recordId, r.entityId]));
  let withLabels: ReturnType<typeof fitDeploymentModel>;

  beforeAll(() => {
    withLabels = fitDeploymentModel(normalised(train), (id) => entityOf.get(id), { now: new Date('2026-11-28T00:00:00Z'), em: lighter });
  });

  it('fits m / u by EM and the calibration from the labels, per type, and says so', () => {
    expect(withLabels.fit).toEqual({
      fitted_at: '2026-11-28T00:00:00.000Z',
      records: { PERSON: expect.any(Number), ORG: expect.any(Number) },
      tables: { PERSON: 'em', ORG: 'em' },
      calibration: { PERSON: 'labels', ORG: 'labels' },
    });
    expect(withLabels.fit.records.PERSON! + withLabels.fit.records.ORG!).toBe(5_000);
    expect(withLabels.model.PERSON.population).toBe(withLabels.fit.records.PERSON);
    expect(withLabels.model.calibration!.PERSON).not.toEqual(DEFAULT_MODEL.calibration!.PERSON);
    expect(withLabels.calibration.map((c) => c.entityType)).toEqual(['PERSON', 'ORG']);
    // It is a valid model file.
    expect(parseModelFile(JSON.parse(JSON.stringify({ format: MODEL_FILE_FORMAT, version: MODEL_FILE_VERSION, fit: withLabels.fit, model: withLabels.model }))).ok).toBe(true);
  }, 60_000);

  it('resolves records it has not seen about as well as the shipped model (precision within half a point, B-cubed within 3)', () => {
    const held = labelled(4_000, 32);
    const fitted = quality(withLabels.model, held);
    const shipped = quality(DEFAULT_MODEL, held);
    expect(fitted.precision).toBeGreaterThan(shipped.precision - 0.005);
    expect(fitted.bcubedF1).toBeGreaterThan(shipped.bcubedF1 - 0.03);
    expect(fitted.bcubedF1).toBeGreaterThan(0.9);
  }, 60_000);

  it('keeps the default calibration without labels, and the default tables of a type with too few records', () => {
    const people = train.filter((r) => r.entityType === 'PERSON');
    const orgs = train.filter((r) => r.entityType === 'ORG').slice(0, MIN_EM_RECORDS - 1);
    const fit = fitDeploymentModel(normalised([...people, ...orgs]), undefined, quick);
    expect(fit.fit.tables).toEqual({ PERSON: 'em', ORG: 'default' });
    expect(fit.fit.calibration).toEqual({ PERSON: 'default', ORG: 'default' });
    expect(fit.model.ORG).toEqual(DEFAULT_MODEL.ORG);
    expect(fit.model.PERSON).not.toEqual(DEFAULT_MODEL.PERSON);
    expect(fit.model.calibration).toEqual(DEFAULT_MODEL.calibration);
    expect(fit.em.map((r) => r.entityType)).toEqual(['PERSON']);
  }, 60_000);

  it('keeps the default calibration of a type whose labels give too few pairs of a kind', () => {
    // Every record its own entity: no matching pair at all.
    const fit = fitDeploymentModel(normalised(train.slice(0, 1_500)), (id) => id, quick);
    expect(fit.fit.calibration).toEqual({ PERSON: 'default', ORG: 'default' });
    expect(fit.calibration).toEqual([]);
  }, 60_000);

  it('labels a sample by the entity of the best record of the candidate cluster, and skips records without a label', () => {
    const raw = labelled(600, 33);
    const label = new Map(raw.map((r, i) => [r.recordId, i % 2 ? r.entityId : undefined]));
    const all = calibrationSamples(normalised(raw), (id) => raw.find((r) => r.recordId === id)!.entityId, UNCALIBRATED_MODEL);
    const half = calibrationSamples(normalised(raw), (id) => label.get(id), UNCALIBRATED_MODEL);
    const count = (s: typeof all) => s.PERSON.length + s.ORG.length;
    expect(count(all)).toBeGreaterThan(100);
    expect(count(half)).toBeLessThan(count(all));
    expect([...all.PERSON, ...all.ORG].some((s) => s.match) && [...all.PERSON, ...all.ORG].some((s) => !s.match)).toBe(true);
  });
});
