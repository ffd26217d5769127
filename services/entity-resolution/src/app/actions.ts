/**
 * The six playbook actions this service serves through ActionService. Each
 * parses its inputs and params at the boundary, then runs the domain code
 * against the caller's namespace (the principal's user id).
 */
import type { ActionContext, ActionHandler } from '@af/service-kit';
import { AppError } from '@af/service-kit';
import { crossReference } from '../domain/cross-reference.js';
import { effectiveThresholds } from '../domain/decision.js';
import { extractEntities, freeTexts } from '../domain/extraction.js';
import { analyse } from '../domain/graph-analytics.js';
import type { EntityInput } from './action-inputs.js';
import {
  analyzeInputs,
  analyzeParams,
  crossInputs,
  crossParams,
  detectInputs,
  detectParams,
  extractInputs,
  extractParams,
  resolveInputs,
  resolveParams,
  searchInputs,
  searchParams,
} from './action-inputs.js';
import { parseOrThrow } from './parse.js';
import { enrichAction } from './enrich.js';
import { entityOut, receiptResults, resolvedOut, type ActionSettings } from './entity-out.js';
import type { GraphStore, InputEntity } from './ports.js';

export { entityOut, type ActionSettings };


const owner = (ctx: ActionContext) => {
  if (!ctx.principal.userId) throw new AppError('UNAUTHENTICATED', 'the call names no principal');
  return ctx.principal.userId;
};


function toInput(e: EntityInput | Omit<EntityInput, 'relationships'>, index: number): InputEntity {
  const input: InputEntity = {
    recordId: `${index}`,
    entityType: e.type,
    name: e.name,
    ...(e.aliases ? { aliases: e.aliases } : {}),
    ...(e.external_ids ? { externalIds: e.external_ids } : {}),
    ...(e.city ? { city: e.city } : {}),
    ...(e.state ? { state: e.state } : {}),
    ...(e.employer ? { employer: e.employer } : {}),
    ...(e.title ? { title: e.title } : {}),
    ...(e.source ? { source: e.source } : {}),
    ...(e.subtype ? { subtype: e.subtype } : {}),
    ...(e.confidence !== undefined ? { confidence: e.confidence } : {}),
    recordIndex: e.source_record_index ?? index,
  };
  if ('relationships' in e && e.relationships) {
    input.relationships = e.relationships.map((r) => ({
      type: r.type,
      target: toInput(r.target, index),
      ...(r.properties ? { properties: r.properties } : {}),
    }));
  }
  return input;
}

export function entityActions(store: GraphStore, settings: ActionSettings): ActionHandler[] {
  const resolve: ActionHandler = {
    name: 'resolve_entities',
    sideEffects: true,
    // Its writes for a call are one statement or one transaction, with the receipt: no claim needed before it.
    optimistic: store.receipts,
    async execute(ctx) {
      const { entities } = parseOrThrow(resolveInputs, ctx.inputs, 'inputs');
      const params = parseOrThrow(resolveParams, ctx.params, 'params');
      const thresholds = effectiveThresholds({
        auto: params.threshold ?? settings.autoThreshold,
        review: settings.reviewThreshold,
      });
      const results = await store.resolve(
        owner(ctx),
        {
          executionId: ctx.runId,
          nodeId: ctx.nodeId,
          ...(params.connector ? { connector: params.connector } : {}),
          ...(params.endpoint ? { endpoint: params.endpoint } : {}),
        },
        entities.map(toInput),
        thresholds,
        // Written with the decisions: a call whose process dies after its write is answered from it (replay).
        ctx.receipt && { call: ctx.receipt, final: true, body: (results) => ({ results }) },
      );
      return resolvedOut(store, owner(ctx), entities, results);
    },
    async replay(ctx, receipt) {
      const { entities } = parseOrThrow(resolveInputs, ctx.inputs, 'inputs');
      return resolvedOut(store, owner(ctx), entities, receiptResults(receipt), false);
    },
  };

  const extract: ActionHandler = {
    name: 'extract_entities',
    sideEffects: false,
    async execute(ctx) {
      const { data } = parseOrThrow(extractInputs, ctx.inputs, 'inputs');
      const p = parseOrThrow(extractParams, ctx.params, 'params');
      const opts = {
        ...(p.entity_extraction ? { hints: p.entity_extraction } : {}),
        ...(p.entity_types ? { entityTypes: p.entity_types } : {}),
        ...(p.relationship_type ? { relationshipType: p.relationship_type } : {}),
      };
      const extractor = settings.extractor;
      const entities = extractEntities(data, { ...opts, freeText: !extractor });
      if (!extractor) return { entities, count: entities.length, method: 'rules' };
      // Free text goes to the configured model; structured fields stay with the hints and rules.
      const wanted = (p.entity_types ?? []).filter((t) => t !== 'auto');
      const found = await extractor.extract(freeTexts(data, p.entity_extraction ?? []), wanted);
      for (const e of found)
        entities.push({
          name: e.name,
          type: e.type,
          source_field: e.field,
          source_record_index: e.index,
          confidence: e.confidence,
          ...(p.relationship_type ? { relationship_type: p.relationship_type } : {}),
        });
      return { entities, count: entities.length, method: 'llm', model: extractor.model };
    },
  };

  const cross: ActionHandler = {
    name: 'cross_reference',
    sideEffects: false,
    async execute(ctx) {
      const { dataset_a, dataset_b } = parseOrThrow(crossInputs, ctx.inputs, 'inputs');
      const p = parseOrThrow(crossParams, ctx.params, 'params');
      return {
        ...crossReference(dataset_a, dataset_b, { strategy: p.match_strategy, threshold: p.match_threshold }),
      };
    },
  };

  const search: ActionHandler = {
    name: 'search_knowledge_graph',
    sideEffects: false,
    async execute(ctx) {
      const inputs = parseOrThrow(searchInputs, ctx.inputs, 'inputs');
      const p = parseOrThrow(searchParams, ctx.params, 'params');
      const names = [inputs.entity_name ?? '', ...(inputs.entity_names ?? [])]
        .map((n) => n.trim())
        .filter(Boolean);
      const found = await store.search(
        owner(ctx),
        names,
        (p.entity_types ?? []).map((t) => t.toUpperCase()),
        50,
      );
      if (!p.include_related || found.length === 0)
        return { entities: found.map(entityOut), relationships: [], count: found.length };
      const sub = await store.subgraph(
        owner(ctx),
        found.map((e) => e.id),
        p.max_hops,
        500,
      );
      const wanted = p.relationship_types ? new Set(p.relationship_types) : undefined;
      const byId = new Map(sub.nodes.map((n) => [n.id, n]));
      const relationships = sub.edges
        .filter((e) => !wanted || wanted.has(e.type))
        .map((e) => ({
          source: byId.get(e.sourceId)?.name ?? e.sourceId,
          target: byId.get(e.targetId)?.name ?? e.targetId,
          source_id: e.sourceId,
          target_id: e.targetId,
          type: e.type,
          properties: e.properties,
          confidence: e.confidence,
        }));
      return { entities: sub.nodes.map(entityOut), relationships, count: sub.nodes.length };
    },
  };

  const analyze: ActionHandler = {
    name: 'analyze_graph',
    sideEffects: false,
    async execute(ctx) {
      const { entities } = parseOrThrow(analyzeInputs, ctx.inputs, 'inputs');
      const p = parseOrThrow(analyzeParams(settings.maxAnalyzeNodes), ctx.params, 'params');
      const refs = (entities ?? [])
        .map((e) => (typeof e === 'string' ? e : (e.entity_id ?? e.id ?? e.canonical_name ?? e.name ?? '')))
        .filter(Boolean);
      const useSeeds =
        p.scope === 'subgraph_from_entities' ||
        (p.scope === undefined && refs.length > 0) ||
        p.algorithm === 'shortest_path';
      let seeds: string[] | undefined;
      if (useSeeds) {
        if (refs.length === 0)
          throw AppError.invalid(
            'inputs.entities',
            `${p.algorithm === 'shortest_path' ? 'shortest_path needs two entities' : 'a subgraph needs starting entities'}`,
          );
        seeds = [];
        for (const ref of refs) {
          const [hit] = await store.search(owner(ctx), [ref], [], 1);
          if (hit) seeds.push(hit.id);
        }
      }
      if (p.algorithm === 'shortest_path' && (seeds?.length ?? 0) < 2)
        throw AppError.invalid('inputs.entities', 'shortest_path needs two entities of the graph');
      const sub = await store.subgraph(
        owner(ctx),
        seeds,
        p.algorithm === 'shortest_path' ? 5 : p.max_hops,
        p.max_nodes,
      );
      const out = analyse(
        p.algorithm,
        sub.nodes.map((n) => ({ id: n.id, name: n.name, type: n.type })),
        sub.edges.map((e) => ({ source: e.sourceId, target: e.targetId, type: e.type })),
        seeds && seeds.length >= 2 ? { from: seeds[0]!, to: seeds[1]! } : {},
      );
      if (p.algorithm === 'community_detection') {
        await store.saveCommunities(
          owner(ctx),
          'louvain',
          out.results.map((r) => (r.members as Array<{ entity_id: string }>).map((m) => m.entity_id)),
        );
      }
      return {
        results: out.results,
        node_count: out.nodeCount,
        edge_count: out.edgeCount,
        truncated: sub.truncated,
      };
    },
  };

  const detect: ActionHandler = {
    name: 'detect_new_entities',
    sideEffects: false,
    async execute(ctx) {
      const inputs = parseOrThrow(detectInputs, ctx.inputs, 'inputs');
      const p = parseOrThrow(detectParams, ctx.params, 'params');
      const since = inputs.watermark ?? p.watermark ?? '';
      if (since && Number.isNaN(Date.parse(since)))
        throw AppError.invalid('params.watermark', 'a watermark is an ISO timestamp');
      const found = await store.newEntitiesSince(
        owner(ctx),
        inputs.entity_types.map((t) => t.toUpperCase()),
        since,
        p.min_confidence,
        p.source_filter ?? '',
        1000,
      );
      const entities = found.map((e) => ({
        entity_id: e.id,
        name: e.name,
        type: e.type,
        subtype: e.subtype,
        confidence: e.confidence,
        source: e.source,
        created_at: e.createdAt,
      }));
      return {
        entities,
        count: entities.length,
        watermark: found.length > 0 ? found[found.length - 1]!.createdAt : since,
      };
    },
  };

  return [extract, resolve, enrichAction(store, settings), cross, search, analyze, detect];
}
