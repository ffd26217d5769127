/**
 * The record the resolver works on: one mention of a person or an
 * organisation from one source, as the `af er resolve` input lines and the
 * `resolve_entities` action carry it.
 */
export const ENTITY_TYPES = ['PERSON', 'ORG'] as const;
export type ResolvableType = (typeof ENTITY_TYPES)[number];

/** External identifier kinds with a canonical form. */
export const ID_KINDS = ['ein', 'fec_id', 'cik'] as const;
export type IdKind = (typeof ID_KINDS)[number];
export type ExternalIds = Partial<Record<IdKind, string>>;

export interface ErRecord {
  recordId: string;
  source?: string;
  entityType: ResolvableType;
  name: string;
  aliases?: string[];
  externalIds?: ExternalIds;
  city?: string;
  state?: string;
  employer?: string;
  title?: string;
  /**
   * What the record was seen with: names or ids of related entities (its employer's EIN, the committee
   * it gave to, a co-signer) and documents it appears in. Two records sharing context are more likely
   * one entity; the scorer's `context` comparison counts the shared items.
   */
  context?: string[];
}
