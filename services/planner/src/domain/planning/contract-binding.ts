/**
 * How the envelope meets the facet catalog (flex spec §5.7, §11): which
 * facets the output contract asks for (goal bindings) and which facets the
 * envelope's inputs already supply (input bindings). Matching is
 * deterministic: an explicit hint (`outputContract.hints.facets`, `x-facet`),
 * then the facet's name (case, `_` and `-` ignored), then word overlap with
 * the facet's name and title (`copyVariants` → `post_copy`, `companyProfile`
 * → `company_information`). Inputs whose value does not fit the facet schema,
 * or that only match loosely, are structured by a transformation node.
 */
import { compileJsonSchema, facetAllows, type Facet, type FacetCatalog, type JsonSchema, type OutputContract } from '@af/plan';
import { schemaSatisfies } from './schema-satisfies.js';

export interface GoalBinding {
  /** Top-level property of the output contract ('' when the whole output is one facet). */
  property: string;
  facet: string;
  required: boolean;
  /** The facet's schema already satisfies the property's schema. */
  direct: boolean;
  /** How the facet was matched. */
  match: 'hint' | 'name' | 'words';
  /** The property's schema. */
  schema: JsonSchema;
}

export interface UnboundProperty {
  property: string;
  required: boolean;
}

export interface InputBinding {
  /** Key in `envelope.inputs`. */
  key: string;
  /** `direct`: the value is the facet; `structured`: a transformation node must shape it; `context`: no facet, passed as context. */
  mode: 'direct' | 'structured' | 'context';
  facet?: string;
  match?: 'name' | 'words';
  /** Why a named match is not direct (the first schema violation). */
  reason?: string;
}

const STOP = new Set(['of', 'the', 'a', 'an', 'and', 'for', 'to', 'in', 'on', 'by', 'with']);

/** Words of an identifier or title: camelCase, snake_case, kebab and spaces split; lowercase; plural `s` dropped. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w && !STOP.has(w))
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

const squash = (s: string) => s.toLowerCase().replace(/[_-]/g, '');

/** Best facet for `name` by word overlap (at least half of the name's words), or undefined. */
export function wordMatch(name: string, facets: readonly Facet[]): Facet | undefined {
  const nameWords = [...new Set(words(name))];
  if (nameWords.length === 0) return undefined;
  let best: { f: Facet; score: number; cover: number } | undefined;
  for (const f of facets) {
    const fw = new Set([...words(f.name), ...words(f.title)]);
    const hits = nameWords.filter((w) => w.length >= 3 && fw.has(w)).length;
    if (hits === 0) continue;
    const score = hits / nameWords.length;
    const cover = hits / fw.size;
    if (score < 0.5) continue;
    if (!best || score > best.score || (score === best.score && cover > best.cover)) best = { f, score, cover };
  }
  return best?.f;
}

function nameMatch(name: string, facets: readonly Facet[]): Facet | undefined {
  return facets.find((f) => f.name === name) ?? facets.find((f) => squash(f.name) === squash(name));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Goal bindings of the output contract. `producible` ranks facets some
 * capability can produce ahead of others when matching by words.
 */
export function bindOutputContract(contract: OutputContract, catalog: FacetCatalog, producible: ReadonlySet<string>): { bindings: GoalBinding[]; unbound: UnboundProperty[] } {
  const schema = contract.schema;
  const outputs = catalog.list().filter((f) => facetAllows(f, 'output'));
  const ranked = [...outputs.filter((f) => producible.has(f.name)), ...outputs.filter((f) => !producible.has(f.name))];
  const hintMap = isRecord(contract.hints?.facets) ? (contract.hints!.facets as Record<string, unknown>) : {};
  const bindings: GoalBinding[] = [];
  const unbound: UnboundProperty[] = [];
  const bind = (property: string, propSchema: JsonSchema, required: boolean) => {
    const hinted = typeof hintMap[property] === 'string' ? (hintMap[property] as string) : typeof propSchema['x-facet'] === 'string' ? (propSchema['x-facet'] as string) : undefined;
    let facet: Facet | undefined;
    let match: GoalBinding['match'] = 'hint';
    if (hinted !== undefined) facet = catalog.get(hinted);
    else if ((facet = nameMatch(property, outputs))) match = 'name';
    else if ((facet = wordMatch(property, ranked))) match = 'words';
    if (!facet) return unbound.push({ property, required });
    bindings.push({ property, facet: facet.name, required, direct: schemaSatisfies(facet.schema, propSchema), match, schema: propSchema });
  };
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  if (properties && Object.keys(properties).length > 0) {
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    for (const [property, propSchema] of Object.entries(properties)) bind(property, isRecord(propSchema) ? propSchema : {}, required.has(property));
  } else if (typeof contract.hints?.facet === 'string') {
    bind('', { ...schema, 'x-facet': contract.hints.facet }, true);
  }
  return { bindings, unbound };
}

/** How each envelope input meets the catalog (only facets a node may consume are candidates). */
export function bindEnvelopeInputs(inputs: Record<string, unknown>, catalog: FacetCatalog): InputBinding[] {
  const consumable = catalog.list().filter((f) => facetAllows(f, 'input'));
  return Object.entries(inputs).map(([key, value]): InputBinding => {
    const named = nameMatch(key, consumable);
    if (named) {
      const validate = compileJsonSchema(named.schema);
      if (validate(value)) return { key, mode: 'direct', facet: named.name, match: 'name' };
      const e = validate.errors?.[0];
      return { key, mode: 'structured', facet: named.name, match: 'name', reason: `${e?.instancePath || '(value)'} ${e?.message ?? 'is invalid'}` };
    }
    const loose = wordMatch(key, consumable);
    if (loose) return { key, mode: 'structured', facet: loose.name, match: 'words' };
    return { key, mode: 'context' };
  });
}
