import { bundleDiagnostics, diagnosticKey, mergeDiagnostics, satisfactionScore, type PlanDiagnostic } from './diagnostics.js';

const d = (over: Partial<PlanDiagnostic>): PlanDiagnostic => ({ severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', ...over });

describe('mergeDiagnostics', () => {
  it('dedupes by (constraintId ∥ hash, nodeId ∥ *, cause), keeping the dominant severity and every unique suggestion', () => {
    const merged = mergeDiagnostics([
      d({ severity: 'soft', constraintId: 'c1', nodeId: 'n1', suggestion: 'Insert QA.' }),
      d({ severity: 'hard', constraintId: 'c1', nodeId: 'n1', suggestion: 'Insert QA.\nMove publish.' }),
      d({ severity: 'hard', constraintId: 'c1', nodeId: 'n1', cause: 'schema_incompatible' }),
      d({ severity: 'hard', constraintId: 'c1' }),
    ]);
    expect(merged).toEqual([
      d({ severity: 'hard', constraintId: 'c1', nodeId: 'n1', suggestion: 'Insert QA.\nMove publish.' }),
      d({ severity: 'hard', constraintId: 'c1', nodeId: 'n1', cause: 'schema_incompatible' }),
      d({ severity: 'hard', constraintId: 'c1' }),
    ]);
  });

  it('keys anonymous constraints by a hash of their text', () => {
    expect(diagnosticKey(d({ constraint: 'a == 1' }))).toBe(diagnosticKey(d({ constraint: 'a == 1', suggestion: 'x' })));
    expect(diagnosticKey(d({ constraint: 'a == 1' }))).not.toBe(diagnosticKey(d({ constraint: 'a == 2' })));
    expect(mergeDiagnostics([d({ constraint: 'a == 1' }), d({ constraint: 'a == 1' })])).toHaveLength(1);
  });

  it('keeps the least satisfied entry of equal severity', () => {
    expect(mergeDiagnostics([d({ constraintId: 'x', status: 'satisfied' }), d({ constraintId: 'x', status: 'unsatisfied' })])).toEqual([d({ constraintId: 'x' })]);
  });

  it('orders by severity, then constraintId, then nodeId, stably', () => {
    const merged = mergeDiagnostics([
      d({ severity: 'informational', cause: 'advisory', constraintId: 'a' }),
      d({ severity: 'soft', cause: 'unsatisfied_soft', constraintId: 'b' }),
      d({ constraintId: 'z', nodeId: 'n2' }),
      d({ constraintId: 'z', nodeId: 'n1' }),
      d({ nodeId: 'n0', cause: 'schema_incompatible' }),
      d({ constraintId: 'm' }),
    ]);
    expect(merged.map((x) => `${x.severity}:${x.constraintId ?? '-'}:${x.nodeId ?? '-'}`)).toEqual(['hard:m:-', 'hard:z:n1', 'hard:z:n2', 'hard:-:n0', 'soft:b:-', 'informational:a:-']);
  });
});

describe('satisfactionScore', () => {
  it('weights hard 1.0 and soft 0.5 and ignores informational', () => {
    // (1 + 1 + 0 + 0.5 + 0) / (1 + 1 + 1 + 0.5 + 0.5) = 2.5 / 4
    const score = satisfactionScore([
      d({ constraintId: 'h1', status: 'satisfied' }),
      d({ constraintId: 'h2', status: 'satisfied' }),
      d({ constraintId: 'h3' }),
      d({ constraintId: 's1', severity: 'soft', status: 'satisfied' }),
      d({ constraintId: 's2', severity: 'soft', cause: 'unsatisfied_soft' }),
      d({ constraintId: 'i1', severity: 'informational', cause: 'advisory', status: 'unknown' }),
    ]);
    expect(score).toBe(0.625);
  });

  it('is 1 with nothing to score, honours custom weights and counts unknown as unsatisfied', () => {
    expect(satisfactionScore([])).toBe(1);
    expect(satisfactionScore([d({ severity: 'informational', cause: 'advisory' })])).toBe(1);
    expect(satisfactionScore([d({ status: 'satisfied' }), d({ severity: 'soft', constraintId: 's' })], { hard: 1, soft: 1 })).toBe(0.5);
    expect(satisfactionScore([d({ status: 'unknown' })])).toBe(0);
  });
});

describe('bundleDiagnostics', () => {
  it('rejects on an unsatisfied hard diagnostic and buckets by severity', () => {
    const b = bundleDiagnostics([
      d({ constraintId: 'min_qa', nodeId: 'publish-1' }),
      d({ severity: 'soft', constraintId: 'exact_two', cause: 'unsatisfied_soft' }),
      d({ severity: 'informational', status: 'unknown', constraintId: 'tone_hint', cause: 'advisory' }),
      d({ constraintId: 'ok', status: 'satisfied' }),
    ]);
    expect(b).toMatchObject({ status: 'rejected', satisfactionScore: 0.4, satisfiedCount: 1 });
    expect([b.failures, b.warnings, b.infos].map((x) => x.map((y) => y.constraintId))).toEqual([['min_qa'], ['exact_two'], ['tone_hint']]);
  });

  it('accepts with findings on soft or advisory diagnostics, and accepts a clean plan', () => {
    expect(bundleDiagnostics([d({ severity: 'soft', cause: 'unsatisfied_soft' })]).status).toBe('accepted_with_findings');
    expect(bundleDiagnostics([d({ severity: 'informational', cause: 'advisory', status: 'unknown' })]).status).toBe('accepted_with_findings');
    expect(bundleDiagnostics([d({ status: 'satisfied' })])).toMatchObject({ status: 'accepted', satisfactionScore: 1, failures: [] });
  });
});
