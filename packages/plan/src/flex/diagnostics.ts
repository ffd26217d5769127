/**
 * Planner diagnostics (flex spec §5.9.3, §5.9.4): what the structural, facet
 * and constraint validators report about a draft plan, merged into one
 * bundle — dedupe key `(constraintId ∥ hash(constraint), nodeId ∥ '*', cause)`,
 * severity dominance, unique suggestions joined by newlines, stable order
 * (severity → constraintId → nodeId), bundle status and satisfactionScore.
 */
import { fnv1a } from './facet.js';

export const SEVERITIES = ['hard', 'soft', 'informational'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const DIAGNOSTIC_CAUSES = ['missing_producer', 'missing_enforcer', 'schema_incompatible', 'unsatisfied_soft', 'advisory'] as const;
export type DiagnosticCause = (typeof DIAGNOSTIC_CAUSES)[number];

export interface PlanDiagnostic {
  severity: Severity;
  status: 'unsatisfied' | 'satisfied' | 'unknown';
  constraint?: string;
  constraintId?: string;
  nodeId?: string;
  capabilityId?: string;
  cause: DiagnosticCause;
  suggestion?: string;
  details?: Record<string, unknown>;
}

export type BundleStatus = 'rejected' | 'accepted' | 'accepted_with_findings';

export interface DiagnosticBundle {
  status: BundleStatus;
  satisfactionScore: number;
  /** Unsatisfied hard diagnostics. */
  failures: PlanDiagnostic[];
  /** Soft diagnostics that are not satisfied. */
  warnings: PlanDiagnostic[];
  /** Informational diagnostics. */
  infos: PlanDiagnostic[];
  /** Checks that passed (counted in the score, not shown in the buckets). */
  satisfiedCount: number;
}

export interface ScoreWeights {
  hard: number;
  soft: number;
}

export const DEFAULT_WEIGHTS: ScoreWeights = { hard: 1.0, soft: 0.5 };

const RANK: Record<Severity, number> = { hard: 0, soft: 1, informational: 2 };
const STATUS_RANK: Record<PlanDiagnostic['status'], number> = { unsatisfied: 0, unknown: 1, satisfied: 2 };

/** The dedupe key of §5.9.3. */
export function diagnosticKey(d: PlanDiagnostic): string {
  const id = d.constraintId ?? (d.constraint !== undefined ? `#${fnv1a(d.constraint)}` : '#');
  return `${id}\u0000${d.nodeId ?? '*'}\u0000${d.cause}`;
}

function mergeSuggestions(a: string | undefined, b: string | undefined): string | undefined {
  const lines = [...(a ?? '').split('\n'), ...(b ?? '').split('\n')].map((s) => s.trim()).filter(Boolean);
  const unique = [...new Set(lines)];
  return unique.length ? unique.join('\n') : undefined;
}

/** Dedupes and orders diagnostics; the kept entry of a key is the most severe, then the least satisfied. */
export function mergeDiagnostics(diagnostics: readonly PlanDiagnostic[]): PlanDiagnostic[] {
  const byKey = new Map<string, { d: PlanDiagnostic; order: number }>();
  diagnostics.forEach((d, order) => {
    const key = diagnosticKey(d);
    const prev = byKey.get(key);
    if (!prev) return byKey.set(key, { d: { ...d }, order });
    const dominant = RANK[d.severity] < RANK[prev.d.severity] || (RANK[d.severity] === RANK[prev.d.severity] && STATUS_RANK[d.status] < STATUS_RANK[prev.d.status]);
    const kept = dominant ? { ...d } : prev.d;
    const suggestion = mergeSuggestions(prev.d.suggestion, d.suggestion);
    if (suggestion !== undefined) kept.suggestion = suggestion;
    byKey.set(key, { d: kept, order: prev.order });
  });
  return [...byKey.values()]
    .sort((x, y) => RANK[x.d.severity] - RANK[y.d.severity] || cmp(x.d.constraintId, y.d.constraintId) || cmp(x.d.nodeId, y.d.nodeId) || x.order - y.order)
    .map((x) => x.d);
}

// Absent sorts after present, so named constraints lead.
function cmp(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a < b ? -1 : 1;
}

/**
 * satisfactionScore = Σ w_i·s_i / Σ w_i over hard and soft diagnostics
 * (s_i = 1 when satisfied, else 0; informational excluded). 1 when nothing is scored.
 */
export function satisfactionScore(diagnostics: readonly PlanDiagnostic[], weights: ScoreWeights = DEFAULT_WEIGHTS): number {
  let num = 0;
  let den = 0;
  for (const d of diagnostics) {
    if (d.severity === 'informational') continue;
    const w = d.severity === 'hard' ? weights.hard : weights.soft;
    den += w;
    if (d.status === 'satisfied') num += w;
  }
  return den === 0 ? 1 : Math.round((num / den) * 10_000) / 10_000;
}

/** Merge, score and bucket: the payload of `plan_rejected` / `plan_generated`. */
export function bundleDiagnostics(diagnostics: readonly PlanDiagnostic[], weights: ScoreWeights = DEFAULT_WEIGHTS): DiagnosticBundle {
  const merged = mergeDiagnostics(diagnostics);
  const failures = merged.filter((d) => d.severity === 'hard' && d.status !== 'satisfied');
  const warnings = merged.filter((d) => d.severity === 'soft' && d.status !== 'satisfied');
  const infos = merged.filter((d) => d.severity === 'informational');
  const hardFailure = failures.some((d) => d.status === 'unsatisfied');
  const findings = warnings.length > 0 || infos.some((d) => d.status === 'unsatisfied' || d.cause === 'advisory');
  return {
    status: hardFailure ? 'rejected' : findings ? 'accepted_with_findings' : 'accepted',
    satisfactionScore: satisfactionScore(merged, weights),
    failures,
    warnings,
    infos,
    satisfiedCount: merged.filter((d) => d.status === 'satisfied').length,
  };
}
