/**
 * Facets (flex spec §5.6 "Facet Definition", §11 "Facet Catalog"): the
 * semantic primitives node contracts are built from — a reusable slice of
 * meaning with a JSON Schema fragment, semantics for the agent, a direction
 * and a version. The catalog is data (loaded from a catalog folder or the
 * planner's database), never hard-wired.
 */
import { z } from 'zod';
import type { PlanIssue } from '../issues/plan-issue.js';
import { nearestName } from '../issues/nearest-name.js';
import { canonicalJson, schemaProblem, type JsonSchema } from './json-schema.js';
import { issuesOf } from './zod-keys.js';

export const FACET_DIRECTIONS = ['input', 'output', 'bidirectional'] as const;
export type FacetDirection = (typeof FACET_DIRECTIONS)[number];

/** Facet names: identifiers (`post_copy`, `toneOfVoice`, `company_information`). */
export const FACET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;
export const FacetNameSchema = z.string().regex(FACET_NAME, 'must be an identifier: a letter or _ then letters, digits or _ (at most 100)');

const MetadataSchema = z
  .looseObject({
    version: z.string().min(1).max(64),
    direction: z.enum(FACET_DIRECTIONS).optional(),
    /** The seed's §5.6 example spells it `directionality`. */
    directionality: z.enum(FACET_DIRECTIONS).optional(),
    /** Nodes consuming the facet need it unless this is false. */
    requiredByDefault: z.boolean().default(true),
    catalogTags: z.array(z.string().min(1).max(100)).max(50).default([]),
  })
  .superRefine((m, ctx) => {
    if (m.direction === undefined && m.directionality === undefined) {
      ctx.addIssue({ code: 'custom', path: ['direction'], message: 'is required: input | output | bidirectional' });
    }
    if (m.direction !== undefined && m.directionality !== undefined && m.direction !== m.directionality) {
      ctx.addIssue({ code: 'custom', path: ['directionality'], message: `contradicts direction '${m.direction}'` });
    }
  });

export const FacetDefinitionSchema = z.strictObject({
  name: FacetNameSchema,
  title: z.string().min(1).max(200),
  description: z.string().min(1).max(4000),
  schema: z.record(z.string(), z.unknown()),
  /** Guidance for the agent; a list of bullet points is joined with newlines. */
  semantics: z.union([z.string().max(8000), z.array(z.string().max(2000)).max(50)]).optional(),
  metadata: MetadataSchema,
});

/** A facet as the catalog holds it (semantics joined, direction resolved). */
export interface Facet {
  name: string;
  title: string;
  description: string;
  schema: JsonSchema;
  semantics: string;
  version: string;
  direction: FacetDirection;
  requiredByDefault: boolean;
  catalogTags: string[];
  /** Every other metadata key, as given. */
  metadata: Record<string, unknown>;
}

/** A facet that failed to parse: each issue names its field under `base`. */
export type FacetParse = { ok: true; facet: Facet } | { ok: false; issues: PlanIssue[] };

/** Parses one facet definition; `base` prefixes field paths (e.g. `facets[3]`). */
export function parseFacet(raw: unknown, base = ''): FacetParse {
  const parsed = FacetDefinitionSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, issues: issuesOf(FacetDefinitionSchema, parsed.error, base) };
  const d = parsed.data;
  const problem = schemaProblem(d.schema);
  const at = (f: string) => (base ? `${base}.${f}` : f);
  if (problem) return { ok: false, issues: [{ code: 'invalid_schema', field: at('schema'), message: `${at('schema')}: ${problem}` }] };
  const { version, direction, directionality, requiredByDefault, catalogTags, ...metadata } = d.metadata;
  return {
    ok: true,
    facet: {
      name: d.name,
      title: d.title,
      description: d.description,
      schema: d.schema,
      semantics: Array.isArray(d.semantics) ? d.semantics.join('\n') : (d.semantics ?? ''),
      version,
      direction: (direction ?? directionality)!,
      requiredByDefault,
      catalogTags,
      metadata,
    },
  };
}

/** The wire/storage form of a facet (what `parseFacet` reads back). */
export function facetToDefinition(f: Facet): z.input<typeof FacetDefinitionSchema> {
  return {
    name: f.name,
    title: f.title,
    description: f.description,
    schema: f.schema,
    semantics: f.semantics,
    metadata: { ...f.metadata, version: f.version, direction: f.direction, requiredByDefault: f.requiredByDefault, catalogTags: f.catalogTags },
  };
}

/** Can a node consume (`input`) or produce (`output`) this facet? */
export function facetAllows(f: Facet, use: 'input' | 'output'): boolean {
  return f.direction === 'bidirectional' || f.direction === use;
}

export class FacetCatalogError extends Error {
  constructor(readonly issues: PlanIssue[]) {
    super(issues.map((i) => i.message).join('; '));
    this.name = 'FacetCatalogError';
  }
}

/**
 * The facet catalog: typed lookups (`get`, `list`, `resolveMany`) over unique
 * facets in catalog order, with a revision string that changes whenever any
 * facet does (compiled contracts are cached by it).
 */
export class FacetCatalog {
  private readonly byName = new Map<string, Facet>();
  /** Changes when any facet's definition changes; part of compiled-contract cache keys. */
  readonly revision: string;

  constructor(facets: Iterable<Facet>) {
    const issues: PlanIssue[] = [];
    let i = 0;
    for (const f of facets) {
      if (this.byName.has(f.name)) issues.push({ code: 'duplicate_facet', field: `facets[${i}].name`, message: `facets[${i}].name: facet '${f.name}' is defined twice` });
      else this.byName.set(f.name, f);
      i++;
    }
    if (issues.length) throw new FacetCatalogError(issues);
    this.revision = fnv1a(canonicalJson([...this.byName.values()].map((f) => [f.name, f.version, f.direction, f.requiredByDefault, f.schema])));
  }

  /** Parses definitions (e.g. a catalog folder); every problem names `facets[i].field`. */
  static fromDefinitions(raw: readonly unknown[]): FacetCatalog {
    const facets: Facet[] = [];
    const issues: PlanIssue[] = [];
    raw.forEach((r, i) => {
      const p = parseFacet(r, `facets[${i}]`);
      if (p.ok) facets.push(p.facet);
      else issues.push(...p.issues);
    });
    if (issues.length) throw new FacetCatalogError(issues);
    return new FacetCatalog(facets);
  }

  get size(): number {
    return this.byName.size;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get(name: string): Facet | undefined {
    return this.byName.get(name);
  }

  /** All facets in catalog order, optionally only those carrying `tag`. */
  list(tag?: string): Facet[] {
    const all = [...this.byName.values()];
    return tag ? all.filter((f) => f.catalogTags.includes(tag)) : all;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The nearest facet name, for "did you mean" hints. */
  suggest(name: string): string | undefined {
    return nearestName(name, this.byName.keys());
  }

  /**
   * The facets named, in the order given.
   * @throws FacetCatalogError naming `field[i]` for each unknown name
   */
  resolveMany(names: readonly string[], field = 'facets'): Facet[] {
    const issues: PlanIssue[] = [];
    const out: Facet[] = [];
    names.forEach((n, i) => {
      const f = this.byName.get(n);
      if (f) out.push(f);
      else issues.push(unknownFacetIssue(this, n, `${field}[${i}]`));
    });
    if (issues.length) throw new FacetCatalogError(issues);
    return out;
  }
}

/** The `unknown_facet` issue with a did-you-mean hint. */
export function unknownFacetIssue(catalog: FacetCatalog, name: string, field: string): PlanIssue {
  const fix = catalog.suggest(name);
  const issue: PlanIssue = { code: 'unknown_facet', field, message: `${field}: unknown facet '${name}'${fix ? ` (did you mean '${fix}'?)` : ''}` };
  if (fix) issue.suggestedFix = fix;
  return issue;
}

/** 32-bit FNV-1a as 8 hex digits: a short, stable content hash (not for security). */
export function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
