/**
 * What storing one record writes, from the domain's decision (resolve-one.ts):
 * the mention, its decision (a merge link, a review item, or neither, each
 * with its log entry and discovery: one write), the answer, and any bridges
 * to merge after it. Pure: the stored names it needs are given.
 */
import { randomUUID } from 'node:crypto';
import { BLOCK_KEYS_VERSION } from '../domain/blocking.js';
import type { NormalisedRecord } from '../domain/normalise.js';
import type { Outcome } from '../domain/resolve-one.js';
import { tfKey } from '../domain/term-stats.js';
import type { LogEntry } from './log-entries.js';
import type { InputEntity, MentionDecision, MentionInput, Provenance, ResolvedOne } from './ports.js';

/** Merges a record's decision adds beyond its own, with what their log entries say. */
export interface Bridge {
  /** The entity the record merged into. */
  into: string;
  entities: ReadonlyArray<{ clusterId: string; probability: number }>;
  base: Omit<LogEntry, 'action' | 'targetId' | 'targetName' | 'reversible'>;
  targetName: string;
  name: string;
  entityType: string;
  prov: Provenance;
}

/** What storing one record writes, decided before any write. */
export interface Plan {
  mention: MentionInput;
  decision: MentionDecision;
  result: ResolvedOne;
  bridge?: Bridge;
}

export interface PlanInput {
  owner: string;
  prov: Provenance;
  input: InputEntity;
  /** The record as stored (without the neighbours it was compared with). */
  plain: NormalisedRecord;
  /** The record as compared. */
  record: NormalisedRecord;
  /** Its block keys and term-frequency key. */
  keys: string[];
  outcome: Outcome;
  /** The name of the entity it merges into or is queued against ('' for a new entity). */
  targetName: string;
}

export function planRecord({ owner, prov, input, plain, record, keys, outcome, targetName }: PlanInput): Plan {
  const id = randomUUID();
  const mention: MentionInput = {
    owner,
    id,
    prov,
    input,
    // Stored without its neighbours: they are read from the stored relationships, as they are then.
    record: { ...plain, recordId: id },
    subtype: input.subtype ?? record.org?.legalForm ?? '',
    keys,
    termKey: tfKey(record),
    keysVersion: BLOCK_KEYS_VERSION,
  };
  const c = outcome.comparison;
  const details = c
    ? {
        probability: outcome.probability,
        jaro_winkler: c.jaroWinkler,
        levels: c.levels,
        weights: c.weights,
        ...(c.sharedId ? { external_id_match: c.sharedId } : {}),
        ...(c.conflict ? { external_id_conflict: c.conflict } : {}),
      }
    : {};
  const base = {
    owner,
    executionId: prov.executionId,
    sourceId: id,
    sourceName: input.name,
    sourceType: record.entityType,
    confidence: outcome.probability,
    method: c?.method ?? '',
    details,
  };
  const logId = randomUUID();
  const merged = outcome.decision === 'auto_merge' ? outcome.clusterId : undefined;
  if (merged) {
    const bridge = outcome.bridge?.length
      ? { into: merged, entities: outcome.bridge, base, targetName, name: input.name, entityType: record.entityType, prov }
      : undefined;
    return {
      mention,
      decision: {
        link: { parent: merged },
        log: { ...base, id: logId, action: 'auto_merge', targetId: merged, targetName, link: { child: id, parent: merged }, reversible: true },
        found: {
          prov,
          discovery: { type: 'entity_merge', name: input.name, entityType: record.entityType, entityId: merged, related: targetName, confidence: outcome.probability },
        },
      },
      result: { entityId: merged, mentionId: id, decision: 'auto_merge', probability: outcome.probability },
      ...(bridge ? { bridge } : {}),
    };
  }
  // A review item or a new entity is a new entity of the graph either way.
  const found = {
    prov,
    discovery: { type: 'new_entity', name: input.name, entityType: record.entityType, entityId: id, confidence: input.confidence ?? 1 },
  };
  const queued = outcome.decision === 'flag_review' ? outcome.clusterId : undefined;
  if (queued) {
    const reviewId = randomUUID();
    return {
      mention,
      decision: {
        review: {
          owner,
          id: reviewId,
          executionId: prov.executionId,
          sourceId: id,
          sourceName: input.name,
          sourceType: record.entityType,
          candidateId: queued,
          candidateName: targetName,
          confidence: outcome.probability,
          details,
          context: { source: input.source ?? '', node_id: prov.nodeId, candidate_record: outcome.candidate?.name ?? '' },
        },
        log: { ...base, id: logId, action: 'flag_review', targetId: queued, targetName, reversible: false },
        found,
      },
      result: { entityId: id, mentionId: id, decision: 'flag_review', probability: outcome.probability, reviewId, candidateEntityId: queued },
    };
  }
  return {
    mention,
    decision: { log: { ...base, id: logId, action: 'create_new', targetId: null, targetName: '', reversible: false }, found },
    result: { entityId: id, mentionId: id, decision: 'create_new', probability: outcome.probability },
  };
}
