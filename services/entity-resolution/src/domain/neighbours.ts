/**
 * Context from relationships: the entities a record is related to (its
 * neighbours in the graph) as context items, so two records of "Jane Doe"
 * both related to "Acme Widgets" count one shared item, as two records
 * naming one document do. A neighbour is named by its comparable name (a
 * person's formal first and last name, an organisation's core name without
 * legal form), so "Acme Widgets Inc" and "ACME WIDGETS" are one neighbour,
 * or, once resolved, by its entity: the organisation named by "E. Okonkwo",
 * resolved after the person merged into Ezekiel Okonkwo, shares Ezekiel
 * with the organisation his other records name.
 *
 * Neighbour items only ever add evidence: unlike documents, two records
 * whose neighbours differ say little (a person has many employers and
 * committees over the years, an organisation many officers), so sharing none
 * is missing data to the scorer (`compareLevels`), not disagreement.
 */
import type { NormalisedRecord } from './normalise.js';

/**
 * Prefix of a neighbour item. Context items given with a record are folded to letters, digits and
 * spaces (normaliseContext), so no given item can start with it.
 */
export const NEIGHBOUR_PREFIX = 'rel:';

/**
 * A neighbour related to more mentions than this is a hub (a national committee, a large employer):
 * sharing it says nothing about who its relatives are, so it is not compared.
 */
export const NEIGHBOUR_HUB_DEGREE = 50;

/** At most this many context items per record (as for given context). */
const MAX_ITEMS = 200;

/** The item naming `neighbour`, or undefined when its name has nothing to compare. */
export function neighbourItem(neighbour: NormalisedRecord): string | undefined {
  if (neighbour.person) {
    const { first, last } = neighbour.person;
    return last ? `${NEIGHBOUR_PREFIX}person:${first ? `${first} ` : ''}${last}` : undefined;
  }
  const core = neighbour.org?.core ?? neighbour.canonical;
  return core ? employerItem(core) : undefined;
}

export const isNeighbourItem = (item: string): boolean => item.startsWith(NEIGHBOUR_PREFIX);

/**
 * A related entity as the scorer compares it: by name (a record), by entity id once resolved, or
 * both (a stored neighbour). A record being resolved names each relative one way only, by name
 * (not resolved yet) or by entity id (resolved before it), so a neighbour counts once.
 */
export interface Neighbour {
  record?: NormalisedRecord;
  entityId?: string;
}

/** The item naming a resolved entity (its root when compared). */
export const entityItem = (entityId: string): string => `${NEIGHBOUR_PREFIX}entity:${entityId}`;

/**
 * `record` with its neighbours added to its context (sorted, de-duplicated, at most 200 items),
 * its own name left out (a relationship to a namesake of itself says nothing).
 */
export function withNeighbours(record: NormalisedRecord, neighbours: readonly Neighbour[]): NormalisedRecord {
  if (neighbours.length === 0) return record;
  const own = neighbourItem(record);
  const items = new Set(record.context ?? []);
  for (const n of neighbours) {
    const item = n.record && neighbourItem(n.record);
    if (item && item !== own && items.size < MAX_ITEMS) items.add(item);
    if (n.entityId && items.size < MAX_ITEMS) items.add(entityItem(n.entityId));
  }
  if (items.size === (record.context?.length ?? 0)) return record;
  return { ...record, context: [...items].sort() };
}

/**
 * The neighbour item of an employer: two people with one employer agree on `employer` already, so
 * the scorer does not count that organisation again as a shared neighbour.
 */
export const employerItem = (employer: string): string => `${NEIGHBOUR_PREFIX}org:${employer}`;
