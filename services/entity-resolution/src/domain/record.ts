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
}
