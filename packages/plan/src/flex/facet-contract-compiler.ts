/**
 * FacetContractCompiler (flex spec §5.7 step 3, §11 "Contract Compiler &
 * Validation Helpers"): selected facets → one JSON Schema whose top-level
 * properties are the facets (`{ post_copy: …, handoff_summary: … }`), with
 * provenance saying which facet contributed each property, and cached Ajv
 * validators. `validateFacetInputs` / `validateFacetOutputs` report each
 * violation with the facet, the JSON pointer and the Ajv keyword.
 */
import type { PlanIssue } from '../issues/plan-issue.js';
import { facetAllows, FacetCatalogError, unknownFacetIssue, type Facet, type FacetCatalog, type FacetDirection } from './facet.js';
import { compileJsonSchema, type ErrorObject, type JsonSchema, type ValidateFunction } from './json-schema.js';

/** `input`: facets a node consumes; `output`: facets it produces; `any`: orchestrator-managed nodes (no direction rule). */
export type ContractDirection = 'input' | 'output' | 'any';

/** Where one property of a compiled schema came from. */
export interface FacetProvenance {
  facet: string;
  title: string;
  version: string;
  /** The facet's own direction in the catalog. */
  direction: FacetDirection;
  /** JSON pointer of the facet's fragment inside the compiled schema. */
  pointer: string;
  required: boolean;
}

export interface CompiledFacetSchema {
  direction: ContractDirection;
  /** Facet names in the order given. */
  facets: string[];
  schema: JsonSchema;
  provenance: FacetProvenance[];
  /** Cache key: direction, facets, required set and catalog revision. */
  key: string;
}

export interface CompileOptions {
  direction: ContractDirection;
  /** Facets that may be absent even though the catalog marks them requiredByDefault. */
  optional?: readonly string[];
  /** Prefix of field paths in errors (e.g. `nodes[2].inputFacets`). */
  field?: string;
}

/** One violation of a facet contract. */
export interface FacetValidationError {
  /** The facet the violation is about (`undefined` only for a non-object payload). */
  facet?: string;
  /** JSON pointer into the payload (`/creative_brief/tone`). */
  pointer: string;
  /** Ajv keyword (`required`, `type`, `additionalProperties`, …). */
  keyword: string;
  message: string;
}

export type FacetValidationResult = { ok: true } | { ok: false; errors: FacetValidationError[] };

const DIRECTION_WORD: Record<'input' | 'output', string> = { input: 'consumed', output: 'produced' };

export class FacetContractCompiler {
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly catalog: FacetCatalog) {}

  /**
   * Merges the facets into one object schema keyed by facet name.
   * @throws FacetCatalogError (`unknown_facet`, `direction_mismatch`, `duplicate_facet`) naming `field[i]`
   */
  compileContracts(names: readonly string[], options: CompileOptions): CompiledFacetSchema {
    const field = options.field ?? 'facets';
    const issues: PlanIssue[] = [];
    const facets: Facet[] = [];
    const seen = new Set<string>();
    names.forEach((n, i) => {
      const f = this.catalog.get(n);
      if (!f) return issues.push(unknownFacetIssue(this.catalog, n, `${field}[${i}]`));
      if (seen.has(n)) return issues.push({ code: 'duplicate_facet', field: `${field}[${i}]`, message: `${field}[${i}]: facet '${n}' is listed twice` });
      seen.add(n);
      if (options.direction !== 'any' && !facetAllows(f, options.direction)) {
        return issues.push(directionIssue(f, options.direction, `${field}[${i}]`));
      }
      facets.push(f);
    });
    if (issues.length) throw new FacetCatalogError(issues);
    const optional = new Set(options.optional ?? []);
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    const provenance: FacetProvenance[] = [];
    for (const f of facets) {
      properties[f.name] = f.schema;
      const isRequired = f.requiredByDefault && !optional.has(f.name);
      if (isRequired) required.push(f.name);
      provenance.push({ facet: f.name, title: f.title, version: f.version, direction: f.direction, pointer: `/properties/${escapePointer(f.name)}`, required: isRequired });
    }
    const schema: JsonSchema = { type: 'object', properties, additionalProperties: false };
    if (required.length) schema.required = required;
    const key = `${this.catalog.revision}|${options.direction}|${facets.map((f) => `${f.name}${required.includes(f.name) ? '!' : '?'}`).join(',')}`;
    return { direction: options.direction, facets: facets.map((f) => f.name), schema, provenance, key };
  }

  /** The Ajv validator of a compiled contract, compiled once per key. */
  validator(compiled: CompiledFacetSchema): ValidateFunction {
    let v = this.validators.get(compiled.key);
    if (!v) {
      v = compileJsonSchema(compiled.schema);
      this.validators.set(compiled.key, v);
    }
    return v;
  }

  validate(compiled: CompiledFacetSchema, payload: unknown): FacetValidationResult {
    const v = this.validator(compiled);
    if (v(payload)) return { ok: true };
    return { ok: false, errors: toFacetErrors(v.errors) };
  }
}

/** Checks a node's input payload against its compiled input contract. */
export function validateFacetInputs(compiler: FacetContractCompiler, compiled: CompiledFacetSchema, payload: unknown): FacetValidationResult {
  return compiler.validate(compiled, payload);
}

/** Checks a node's output against its compiled output contract. */
export function validateFacetOutputs(compiler: FacetContractCompiler, compiled: CompiledFacetSchema, payload: unknown): FacetValidationResult {
  return compiler.validate(compiled, payload);
}

/** The `direction_mismatch` issue for a facet used against its direction. */
export function directionIssue(f: Facet, use: 'input' | 'output', field: string): PlanIssue {
  return {
    code: 'direction_mismatch',
    field,
    message: `${field}: facet '${f.name}' is ${f.direction}-only and cannot be ${DIRECTION_WORD[use]} by a node`,
  };
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Ajv errors → facet errors; the facet is the first pointer segment (or the missing / extra property at the root). */
function toFacetErrors(errors: readonly ErrorObject[] | null | undefined): FacetValidationError[] {
  const out: FacetValidationError[] = [];
  for (const e of errors ?? []) {
    const segments = e.instancePath.split('/').slice(1).map(unescapePointer);
    let pointer = e.instancePath;
    let facet = segments[0];
    const params = e.params as { missingProperty?: string; additionalProperty?: string };
    if (e.keyword === 'required' && params.missingProperty !== undefined) {
      pointer = `${e.instancePath}/${escapePointer(params.missingProperty)}`;
      facet ??= params.missingProperty;
    } else if (e.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
      pointer = `${e.instancePath}/${escapePointer(params.additionalProperty)}`;
      facet ??= params.additionalProperty;
    }
    const where = pointer || '(payload)';
    const message =
      e.keyword === 'additionalProperties' && segments.length === 0
        ? `${where}: '${params.additionalProperty}' is not a facet of this contract`
        : `${where}: ${e.message ?? 'is invalid'}`;
    out.push({ ...(facet !== undefined ? { facet } : {}), pointer, keyword: e.keyword, message });
  }
  return out;
}
