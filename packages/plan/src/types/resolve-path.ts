/**
 * Walks a reference path (`.results[*].donor_name`) through a contract's
 * field specs to the type it yields, or to the first segment that does not
 * exist — the heart of seed §5 rule 3(c) "has the named field in its output
 * schema".
 */
import type { PathSegment } from '@af/expr';
import { elementType, isArrayType, isRecordType, type FieldSpec } from './io-type.js';

export type PathResolution =
  | { ok: true; spec: FieldSpec }
  | {
      ok: false;
      /** Rendered path up to and including the failing segment, e.g. `results[*].donr_name`. */
      at: string;
      reason: string;
      /** Names that would have been valid at the failing segment. */
      available: string[];
      /** A corrected rendering of the segment when one is obvious (`entities[*]` for `entities.name`). */
      fix?: string;
      /** Index in the path of the failing segment. */
      index: number;
      /** The whole path corrected when the fix is a structural one (a `[*]` projection inserted). */
      fixPath?: PathSegment[];
    };

const ANY: FieldSpec = { type: 'any' };

/** Renders a path like the reference grammar writes it (without the root). */
export function renderPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (seg.kind === 'prop') out += out === '' ? seg.name : `.${seg.name}`;
    else if (seg.kind === 'index') out += `[${seg.index}]`;
    else out += '[*]';
  }
  return out;
}

function elementSpec(spec: FieldSpec): FieldSpec {
  const el = elementType(spec.type) ?? 'any';
  return spec.fields ? { type: el, fields: spec.fields } : { type: el };
}

function isObjectLike(spec: FieldSpec): boolean {
  return isRecordType(spec.type) || spec.type === 'record_set';
}

/** Resolves `path` against `root`; wildcards project, so their result is an array type. */
export function resolvePath(root: FieldSpec, path: readonly PathSegment[]): PathResolution {
  let spec = root;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const at = renderPath(path.slice(0, i + 1));
    if (spec.type === 'any' || spec.type === 'any[]') {
      // Unknown shape: nothing more can be checked; a projection still yields an array.
      return { ok: true, spec: path.slice(i).some((s) => s.kind === 'wildcard') ? { type: 'any[]' } : ANY };
    }
    if (seg.kind === 'prop') {
      if (isArrayType(spec.type)) {
        const prefix = renderPath(path.slice(0, i));
        return {
          ok: false,
          at,
          reason: `'${prefix}' is a list (${spec.type}); pick one element or project over all of them`,
          available: [],
          fix: `${prefix}[*].${seg.name}`,
          index: i,
          fixPath: [...path.slice(0, i), { kind: 'wildcard' }, ...path.slice(i)],
        };
      }
      if (!isObjectLike(spec)) {
        return { ok: false, at, reason: `'${renderPath(path.slice(0, i)) || 'the output'}' is a ${spec.type} and has no fields`, available: [], index: i };
      }
      if (!spec.fields) {
        spec = ANY;
        continue;
      }
      const next = Object.prototype.hasOwnProperty.call(spec.fields, seg.name) ? spec.fields[seg.name] : undefined;
      if (!next) {
        return { ok: false, at, reason: `no field '${seg.name}'`, available: Object.keys(spec.fields), index: i };
      }
      spec = next;
    } else if (seg.kind === 'index') {
      if (!isArrayType(spec.type)) {
        return { ok: false, at, reason: `'${renderPath(path.slice(0, i))}' is a ${spec.type}, not a list`, available: [], index: i };
      }
      spec = elementSpec(spec);
    } else {
      if (!isArrayType(spec.type)) {
        return { ok: false, at, reason: `'${renderPath(path.slice(0, i))}' is a ${spec.type}, not a list`, available: [], index: i };
      }
      const rest = resolvePath(elementSpec(spec), path.slice(i + 1));
      if (!rest.ok) {
        const head = renderPath(path.slice(0, i + 1));
        return {
          ...rest,
          at: rest.at ? `${head}.${rest.at}`.replace('.[', '[') : head,
          index: rest.index + i + 1,
          ...(rest.fix ? { fix: `${head}.${rest.fix}`.replace('.[', '[') } : {}),
          ...(rest.fixPath ? { fixPath: [...path.slice(0, i + 1), ...rest.fixPath] } : {}),
        };
      }
      const t = rest.spec.type;
      return { ok: true, spec: rest.spec.fields ? { type: `${t}[]`, fields: rest.spec.fields } : { type: `${t}[]` } };
    }
  }
  return { ok: true, spec };
}
