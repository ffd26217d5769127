/**
 * Does every value valid under `producer` also satisfy `consumer`? A
 * conservative JSON Schema subsumption check: when in doubt it answers false,
 * and the planner injects a normalisation node instead of trusting a shape it
 * cannot prove (flex spec §6: normalisation only on a contract mismatch).
 */
import { canonicalJson } from '@af/plan';

type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', '$comment', '$schema', '$id', 'deprecated', 'readOnly', 'writeOnly']);
const HANDLED = new Set(['type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'uniqueItems']);

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema without annotations (which never constrain values). */
export function stripAnnotations(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(stripAnnotations);
  if (!isSchema(s)) return s;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (ANNOTATIONS.has(k) || k.startsWith('x-')) continue;
    out[k] = k === 'properties' && isSchema(v) ? Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, stripAnnotations(ps)])) : stripAnnotations(v);
  }
  return out;
}

function types(s: Schema): string[] | undefined {
  if (s.type === undefined) return undefined;
  return Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
}

/** Lower bound of `key` in the producer must be ≥ the consumer's (or the consumer has none). */
function atLeast(p: Schema, c: Schema, key: string): boolean {
  if (c[key] === undefined) return true;
  return typeof p[key] === 'number' && (p[key] as number) >= (c[key] as number);
}

function atMost(p: Schema, c: Schema, key: string): boolean {
  if (c[key] === undefined) return true;
  return typeof p[key] === 'number' && (p[key] as number) <= (c[key] as number);
}

function same(p: Schema, c: Schema, key: string): boolean {
  return c[key] === undefined || canonicalJson(p[key]) === canonicalJson(c[key]);
}

/** True when every value valid under `producer` is valid under `consumer`. */
export function schemaSatisfies(producer: unknown, consumer: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  const c = stripAnnotations(consumer);
  const p = stripAnnotations(producer);
  if (c === true || (isSchema(c) && Object.keys(c).length === 0)) return true;
  if (!isSchema(c) || !isSchema(p)) return false;
  if (canonicalJson(p) === canonicalJson(c)) return true;
  if (Object.keys(c).some((k) => !HANDLED.has(k))) return false;

  const ct = types(c);
  const pt = types(p);
  if (ct) {
    if (!pt) return false;
    const ok = pt.every((t) => ct.includes(t) || (t === 'integer' && ct.includes('number')));
    if (!ok) return false;
  }
  if (c.const !== undefined) return p.const !== undefined && canonicalJson(p.const) === canonicalJson(c.const);
  if (Array.isArray(c.enum)) {
    const allowed = new Set((c.enum as unknown[]).map(canonicalJson));
    const produced = Array.isArray(p.enum) ? (p.enum as unknown[]) : p.const !== undefined ? [p.const] : undefined;
    if (!produced || !produced.every((v) => allowed.has(canonicalJson(v)))) return false;
  }
  if (!(atLeast(p, c, 'minLength') && atMost(p, c, 'maxLength') && same(p, c, 'pattern') && same(p, c, 'format'))) return false;
  if (!(atLeast(p, c, 'minimum') && atMost(p, c, 'maximum') && atLeast(p, c, 'exclusiveMinimum') && atMost(p, c, 'exclusiveMaximum'))) return false;
  if (!(atLeast(p, c, 'minItems') && atMost(p, c, 'maxItems'))) return false;
  if (c.uniqueItems === true && p.uniqueItems !== true) return false;

  if (c.items !== undefined) {
    if (p.items === undefined || !schemaSatisfies(p.items, c.items, depth + 1)) return false;
  }
  if (c.properties !== undefined || c.required !== undefined || c.additionalProperties !== undefined) {
    const cProps = isSchema(c.properties) ? c.properties : {};
    const pProps = isSchema(p.properties) ? p.properties : {};
    const pRequired = new Set(Array.isArray(p.required) ? (p.required as string[]) : []);
    const cRequired = Array.isArray(c.required) ? (c.required as string[]) : [];
    if (!cRequired.every((r) => pRequired.has(r))) return false;
    for (const [name, cs] of Object.entries(cProps)) {
      if (name in pProps) {
        if (!schemaSatisfies(pProps[name], cs, depth + 1)) return false;
      } else if (p.additionalProperties !== false) {
        // The producer may emit anything under this name.
        if (!schemaSatisfies({}, cs, depth + 1)) return false;
      }
    }
    if (c.additionalProperties === false) {
      if (p.additionalProperties !== false) return false;
      if (!Object.keys(pProps).every((name) => name in cProps)) return false;
    } else if (isSchema(c.additionalProperties)) {
      return false;
    }
  }
  return true;
}
