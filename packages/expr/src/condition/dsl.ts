/**
 * The Condition DSL of the flex spec (§5.3): `facets.planKnobs.hookIntensity
 * >= 0.6 && facets.planKnobs.hookIntensity < 0.9` ⇄ JSON-Logic, with
 * `canonicalDsl`, `warnings` and `variables`.
 *
 * Path aliases map the DSL spelling of a variable to its canonical JSON-Logic
 * path and back. The default, {@link facetPathAlias}, maps
 * `facets.<facet>.<rest>` to `metadata.runContextSnapshot.facets.<facet>.value.<rest>`
 * and still accepts the legacy `facets.<facet>.value.<rest>` (with a
 * `legacy_path` warning).
 */
import { formatPath, parsePath, type ParsedPath } from '../path.js';
import { compileLogicPredicate } from './compile-logic.js';
import type { JsonLogic } from './json-logic.types.js';
import { parseConditionText, type ConditionWarning, type PathMapper } from './parser.js';
import { renderDsl } from './render-dsl.js';

/** A two-way mapping between DSL variable spellings and canonical JSON-Logic paths. */
export interface PathAlias {
  /** Canonical path for a DSL path, or undefined when this alias does not apply. */
  toCanonical(path: ParsedPath): { path: string; legacy?: boolean } | undefined;
  /** DSL spelling of a canonical path, or undefined when this alias does not apply. */
  toDsl(path: ParsedPath): string | undefined;
}

export interface DslOptions {
  /** Path aliases to apply; defaults to `[facetPathAlias]`. Pass `[]` for none. */
  aliases?: readonly PathAlias[];
  /** `some`/`all`/`none` allowed inside one another's predicate (default: the configured limit). */
  maxQuantifierDepth?: number;
}

/** The normalized condition envelope of the flex spec. */
export interface DslResult {
  jsonLogic: JsonLogic;
  /** The text as given. */
  dsl: string;
  /** The text re-rendered from `jsonLogic`; parsing it yields the same `jsonLogic`. */
  canonicalDsl: string;
  warnings: ConditionWarning[];
  /** Canonical (JSON-Logic) paths of root variables, in order of first use. */
  variables: string[];
}

const SNAPSHOT = ['runContextSnapshot', 'facets'];

/** `facets.X.rest` ⇄ `metadata.runContextSnapshot.facets.X.value.rest`. */
export const facetPathAlias: PathAlias = {
  toCanonical({ root, path }) {
    const facet = path[0];
    if (root !== 'facets' || facet?.kind !== 'prop') return undefined;
    const second = path[1];
    const legacy = second?.kind === 'prop' && second.name === 'value';
    const rest = path.slice(legacy ? 2 : 1);
    const canonical = formatPath('metadata', [
      ...SNAPSHOT.map((name) => ({ kind: 'prop' as const, name })),
      facet,
      { kind: 'prop', name: 'value' },
      ...rest,
    ]);
    return { path: canonical, legacy };
  },
  toDsl({ root, path }) {
    if (root !== 'metadata' || path.length < 4) return undefined;
    const [a, b, facet, value] = path;
    if (a?.kind !== 'prop' || a.name !== SNAPSHOT[0] || b?.kind !== 'prop' || b.name !== SNAPSHOT[1])
      return undefined;
    if (facet?.kind !== 'prop' || value?.kind !== 'prop' || value.name !== 'value') return undefined;
    const rest = path.slice(4);
    // `facets.X.value...` would read back as the legacy spelling and lose a level.
    if (rest[0]?.kind === 'prop' && rest[0].name === 'value') return undefined;
    return formatPath('facets', [facet, ...rest]);
  },
};

function mapperFor(aliases: readonly PathAlias[]): PathMapper | undefined {
  if (aliases.length === 0) return undefined;
  return (text, ref) => {
    for (const alias of aliases) {
      const hit = alias.toCanonical(ref);
      if (hit) {
        return hit.legacy
          ? {
              path: hit.path,
              warning: `'${text}' uses the legacy '.value' spelling; write it without '.value'`,
            }
          : { path: hit.path };
      }
    }
    return undefined;
  };
}

function rendererFor(aliases: readonly PathAlias[]): ((path: string) => string | undefined) | undefined {
  if (aliases.length === 0) return undefined;
  return (text) => {
    let ref: ParsedPath;
    try {
      ref = parsePath(text);
    } catch {
      return undefined;
    }
    for (const alias of aliases) {
      const shown = alias.toDsl(ref);
      if (shown !== undefined) return shown;
    }
    return undefined;
  };
}

/**
 * Parse Condition DSL text into the normalized envelope. Throws `ExprError`
 * (`empty_expression`, `syntax_error` with `position` and `expected`).
 */
export function parseDsl(text: string, opts: DslOptions = {}): DslResult {
  const aliases = opts.aliases ?? [facetPathAlias];
  const parsed = parseConditionText(text, {
    mapPath: mapperFor(aliases),
    ...(opts.maxQuantifierDepth !== undefined ? { maxQuantifierDepth: opts.maxQuantifierDepth } : {}),
  });
  const canonicalDsl = renderDsl(parsed.logic, rendererFor(aliases));
  const warnings = [...parsed.warnings];
  if (!referencesAnyVar(parsed.logic)) {
    warnings.push(constantWarning(parsed.logic));
  }
  return { jsonLogic: parsed.logic, dsl: text, canonicalDsl, warnings, variables: parsed.variables };
}

function referencesAnyVar(node: JsonLogic): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(referencesAnyVar);
  return Object.keys(node).some((k) => k === 'var' || referencesAnyVar(node[k]!));
}

function constantWarning(logic: JsonLogic): ConditionWarning {
  let value: boolean | undefined;
  try {
    value = compileLogicPredicate(logic)({ vars: {} });
  } catch {
    value = undefined;
  }
  return value
    ? { code: 'noop_true', message: 'The condition references no variable and is always true' }
    : { code: 'noop_false', message: 'The condition references no variable and is never true' };
}

/** DSL text → canonical JSON-Logic. */
export function dslToJsonLogic(text: string, opts: DslOptions = {}): JsonLogic {
  return parseDsl(text, opts).jsonLogic;
}

/** JSON-Logic → canonical DSL text. Throws `ExprError` for rules the DSL cannot express (e.g. `var` defaults). */
export function jsonLogicToDsl(logic: JsonLogic, opts: DslOptions = {}): string {
  return renderDsl(logic, rendererFor(opts.aliases ?? [facetPathAlias]));
}
