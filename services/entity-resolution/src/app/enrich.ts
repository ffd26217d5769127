/**
 * `enrich_knowledge`: the node the playbook compiler adds after each
 * connector step of a run whose playbook sets `output.auto_enrich_graph`.
 * The step's records are read through the endpoint's `entity_extraction`
 * hints (domain/enrichment.ts) and resolved into the run owner's graph with
 * provenance on every fact: connector, endpoint, run, the connector's node,
 * record index and time (entity rows' provenance; relationship properties).
 */
import type { ActionHandler } from '@af/service-kit';
import { AppError } from '@af/service-kit';
import { effectiveThresholds } from '../domain/decision.js';
import { enrichmentRecords, type EnrichRecord } from '../domain/enrichment.js';
import { enrichInputs, enrichParams } from './action-inputs.js';
import { entityOut, type ActionSettings } from './entity-out.js';
import { parseOrThrow } from './parse.js';
import type { GraphStore, InputEntity, ResolvedOne } from './ports.js';

/** Records per store transaction: a large connector page is resolved in several. */
const BATCH = 500;

export function enrichAction(store: GraphStore, settings: ActionSettings): ActionHandler {
  return {
    name: 'enrich_knowledge',
    sideEffects: true,
    async execute(ctx) {
      const owner = ctx.principal.userId;
      if (!owner) throw new AppError('UNAUTHENTICATED', 'the call names no principal');
      const { data } = parseOrThrow(enrichInputs, ctx.inputs, 'inputs');
      const p = parseOrThrow(enrichParams, ctx.params, 'params');
      const { records, skipped } = enrichmentRecords(data, p.entity_extraction ?? [], p.connector ?? '');
      const provenance = {
        source_connector: p.connector ?? '',
        source_endpoint: p.endpoint ?? '',
        source_execution_id: ctx.runId,
        source_node: p.source_node ?? ctx.nodeId,
      };
      const inputs = records.map((r) => toInput(r, provenance));
      const thresholds = effectiveThresholds({ auto: settings.autoThreshold, review: settings.reviewThreshold });
      const results: ResolvedOne[] = [];
      for (let i = 0; i < inputs.length; i += BATCH) {
        results.push(
          ...(await store.resolve(
            owner,
            {
              executionId: ctx.runId,
              nodeId: provenance.source_node,
              ...(p.connector ? { connector: p.connector } : {}),
              ...(p.endpoint ? { endpoint: p.endpoint } : {}),
            },
            inputs.slice(i, i + BATCH),
            thresholds,
          )),
        );
      }
      const views = await store.entities(
        owner,
        results.map((r) => r.entityId),
      );
      return {
        resolved: views.map(entityOut),
        merge_count: results.filter((r) => r.decision === 'auto_merge').length,
        ambiguous: results.flatMap((r, i) =>
          r.decision === 'flag_review'
            ? [
                {
                  name: inputs[i]!.name,
                  type: inputs[i]!.entityType,
                  entity_id: r.entityId,
                  candidate_entity_id: r.candidateEntityId,
                  review_id: r.reviewId,
                  confidence: r.probability,
                },
              ]
            : [],
        ),
        relationship_count: inputs.reduce((n, e) => n + (e.relationships?.length ?? 0), 0),
        skipped,
        count: views.length,
      };
    },
  };
}

function toInput(r: EnrichRecord, provenance: Record<string, string>): InputEntity {
  const { relationships, ...rest } = r;
  return {
    ...rest,
    ...(relationships
      ? {
          relationships: relationships.map((rel) => ({
            type: rel.type,
            target: rel.target,
            properties: { ...rel.properties, ...provenance },
          })),
        }
      : {}),
  };
}
