/**
 * The Condition DSL envelope of the flex spec (§5.1 facet goal predicates,
 * §5.3 "Runtime Condition Evaluation"): callers send DSL text, a
 * `{dsl?, jsonLogic?, …}` envelope, or plain JSON-Logic (legacy); all become
 * `{ jsonLogic, dsl?, canonicalDsl?, warnings, variables }`, compiled once
 * through @af/expr so a malformed condition is refused at the boundary.
 */
import { collectLogicVariables, compileCondition, ExprError, parseDsl, type JsonLogic } from '@af/expr';
import type { PlanIssue } from '../issues/plan-issue.js';

export interface ConditionEnvelope {
  jsonLogic: JsonLogic;
  dsl?: string;
  canonicalDsl?: string;
  warnings: Array<{ code: string; message: string }>;
  /** Canonical root variable paths read by the condition. */
  variables: string[];
}

const ENVELOPE_KEYS = new Set(['dsl', 'canonicalDsl', 'jsonLogic', 'warnings', 'variables']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function exprIssue(e: unknown, field: string): PlanIssue {
  const err = e instanceof ExprError ? e : new ExprError('invalid_condition', (e as Error).message);
  const where = err.position !== undefined ? ` (at ${err.position}${err.expected ? `, expected ${err.expected}` : ''})` : '';
  return { code: 'invalid_condition', field, message: `${field}: ${err.message}${where}` };
}

/** Normalises a condition given as DSL text, an envelope or JSON-Logic; `field` names it in issues. */
export function normalizeConditionEnvelope(raw: unknown, field: string): { ok: true; condition: ConditionEnvelope } | { ok: false; issues: PlanIssue[] } {
  if (typeof raw === 'string') return fromDsl(raw, field);
  if (typeof raw === 'boolean') return fromLogic(raw, field);
  if (!isRecord(raw)) return { ok: false, issues: [{ code: 'invalid_condition', field, message: `${field}: must be Condition DSL text, a {dsl, jsonLogic} envelope or a JSON-Logic object` }] };
  const isEnvelope = Object.keys(raw).length > 0 && Object.keys(raw).every((k) => ENVELOPE_KEYS.has(k)) && ('dsl' in raw || 'jsonLogic' in raw);
  if (!isEnvelope) return fromLogic(raw, field);
  if (raw.dsl !== undefined) {
    if (typeof raw.dsl !== 'string') return { ok: false, issues: [{ code: 'invalid_condition', field: `${field}.dsl`, message: `${field}.dsl: must be a string` }] };
    const r = fromDsl(raw.dsl, `${field}.dsl`);
    if (!r.ok || raw.jsonLogic === undefined) return r;
    // Both given: the DSL is the source; a jsonLogic that says something else is a caller bug worth flagging.
    const given = fromLogic(raw.jsonLogic, `${field}.jsonLogic`);
    if (!given.ok) return given;
    if (JSON.stringify(given.condition.jsonLogic) !== JSON.stringify(r.condition.jsonLogic)) {
      r.condition.warnings.push({ code: 'jsonlogic_mismatch', message: 'jsonLogic differs from the compiled dsl; the dsl was used' });
    }
    return r;
  }
  return fromLogic(raw.jsonLogic, `${field}.jsonLogic`);
}

function fromDsl(text: string, field: string): { ok: true; condition: ConditionEnvelope } | { ok: false; issues: PlanIssue[] } {
  try {
    const r = parseDsl(text);
    return { ok: true, condition: { jsonLogic: r.jsonLogic, dsl: r.dsl, canonicalDsl: r.canonicalDsl, warnings: r.warnings.map((w) => ({ code: w.code, message: w.message })), variables: r.variables } };
  } catch (e) {
    return { ok: false, issues: [exprIssue(e, field)] };
  }
}

function fromLogic(logic: unknown, field: string): { ok: true; condition: ConditionEnvelope } | { ok: false; issues: PlanIssue[] } {
  try {
    const compiled = compileCondition(logic, { dialect: 'jsonlogic' });
    return { ok: true, condition: { jsonLogic: compiled.ast, warnings: [], variables: collectLogicVariables(compiled.ast) } };
  } catch (e) {
    return { ok: false, issues: [exprIssue(e, field)] };
  }
}
