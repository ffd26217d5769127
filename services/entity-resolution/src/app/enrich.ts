/**
 * `enrich_knowledge`: the node the playbook compiler adds after each
 * connector step of a run whose playbook sets `output.auto_enrich_graph`.
 * The step's records are read through the endpoint's `entity_extraction`
 * hints (domain/enrichment.ts) and resolved into the run owner's graph with
 * provenance on every fact: connector, endpoint, run, the connector's node,
 * record index and time (entity rows' provenance; relationship properties).
 * Each batch checkpoints the call's receipt in its own transaction, so a
 * call resumed after a crash resolves no record twice.
 */
import type { ActionContext, ActionHandler } from '@af/service-kit';
import { AppError } from '@af/service-kit';
import { effectiveThresholds } from '../domain/decision.js';
import { enrichmentRecords, type EnrichRecord } from '../domain/enrichment.js';
import { enrichInputs, enrichParams } from './action-inputs.js';
import { receiptResults, resolvedOut, type ActionSettings } from './entity-out.js';
import { parseOrThrow } from './parse.js';
import type { GraphStore, InputEntity, ResolvedOne } from './ports.js';

/** Records per store transaction: a large connector page is resolved in several. */
const BATCH = 500;

export function enrichAction(store: GraphStore, settings: ActionSettings): ActionHandler {
  /** The call's inputs as records, their provenance, and what the extraction skipped. */
  const prepare = (ctx: ActionContext) => {
    const { data } = parseOrThrow(enrichInputs, ctx.inputs, 'inputs');
    const p = parseOrThrow(enrichParams, ctx.params, 'params');
    const { records, skipped } = enrichmentRecords(data, p.entity_extraction ?? [], p.connector ?? '');
    const provenance = {
      source_connector: p.connector ?? '',
      source_endpoint: p.endpoint ?? '',
      source_execution_id: ctx.runId,
      source_node: p.source_node ?? ctx.nodeId,
    };
    return { p, provenance, inputs: records.map((r) => toInput(r, provenance)), skipped };
  };
  const answer = async (owner: string, inputs: readonly InputEntity[], results: readonly ResolvedOne[], skipped: unknown, settled?: boolean) => ({
    ...(await resolvedOut(
      store,
      owner,
      inputs.map((e) => ({ name: e.name, type: e.entityType })),
      results,
      settled,
    )),
    relationship_count: inputs.reduce((n, e) => n + (e.relationships?.length ?? 0), 0),
    skipped,
  });
  return {
    name: 'enrich_knowledge',
    sideEffects: true,
    async execute(ctx) {
      const owner = principalOf(ctx);
      const { p, provenance, inputs, skipped } = prepare(ctx);
      const thresholds = effectiveThresholds({ auto: settings.autoThreshold, review: settings.reviewThreshold });
      // Each batch's transaction checkpoints the results so far in the call's receipt (the last one
      // completes the call): a call taken over after its process died goes on after the last batch
      // that committed, and one that died after the last is answered from its receipt.
      const results: ResolvedOne[] = ctx.receipt?.prior !== undefined ? receiptResults(ctx.receipt.prior) : [];
      if (results.length > inputs.length) throw new AppError('INTERNAL', 'the checkpoint of this call holds more records than the call');
      for (let i = results.length; i < inputs.length; i += BATCH) {
        const batch = inputs.slice(i, i + BATCH);
        const done = results.length;
        results.push(
          ...(await store.resolve(
            owner,
            {
              executionId: ctx.runId,
              nodeId: provenance.source_node,
              ...(p.connector ? { connector: p.connector } : {}),
              ...(p.endpoint ? { endpoint: p.endpoint } : {}),
            },
            batch,
            thresholds,
            ctx.receipt && {
              call: ctx.receipt,
              final: i + BATCH >= inputs.length,
              body: (batchResults) => ({ results: [...results.slice(0, done), ...batchResults].map(({ view: _view, ...r }) => r) }),
            },
          )),
        );
      }
      return answer(owner, inputs, results, skipped);
    },
    async replay(ctx, receipt) {
      const { inputs, skipped } = prepare(ctx);
      const owner = principalOf(ctx);
      return answer(owner, inputs, receiptResults(receipt), skipped, false);
    },
  };
}

function principalOf(ctx: ActionContext): string {
  if (!ctx.principal.userId) throw new AppError('UNAUTHENTICATED', 'the call names no principal');
  return ctx.principal.userId;
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
