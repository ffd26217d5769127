/** The EntityService use cases: review queue, log, reversal, discoveries and graph queries, each in the caller's namespace. */
import { AppError } from '@af/service-kit';
import { z } from 'zod';
import { analyse, ALGORITHMS } from '../domain/graph-analytics.js';
import { parseOrThrow } from './parse.js';
import type { GraphStore } from './ports.js';

const uuid = (field: string) => z.string().uuid({ message: `${field} is not a valid id` });
const limit = (v: number) => (v > 0 ? Math.min(v, 500) : 100);

export class Knowledge {
  constructor(
    private readonly store: GraphStore,
    private readonly maxNodes: number,
  ) {}

  private owner(userId: string): string {
    if (!userId) throw new AppError('UNAUTHENTICATED', 'the call names no principal');
    return userId;
  }

  listReviews(userId: string, status: string, n: number) {
    const s = parseOrThrow(
      z.enum(['', 'pending', 'approved_merge', 'rejected', 'skipped', 'auto_merged']),
      status,
      'status',
    );
    return this.store.listReviews(this.owner(userId), s, limit(n));
  }

  decideReview(userId: string, reviewId: string, decision: string) {
    const id = parseOrThrow(uuid('review_id'), reviewId, 'review_id');
    const d = parseOrThrow(z.enum(['approve', 'reject', 'not_a_match']), decision, 'decision');
    return this.store.decideReview(this.owner(userId), id, d);
  }

  listLog(userId: string, action: string, n: number) {
    const a = parseOrThrow(
      z.enum(['', 'auto_merge', 'user_merge', 'user_split', 'create_new', 'flag_review']),
      action,
      'action',
    );
    return this.store.listLog(this.owner(userId), a, limit(n));
  }

  reverse(userId: string, logId: string) {
    return this.store.reverse(this.owner(userId), parseOrThrow(uuid('log_id'), logId, 'log_id'));
  }

  split(userId: string, memberId: string) {
    return this.store.split(this.owner(userId), parseOrThrow(uuid('member_id'), memberId, 'member_id'));
  }

  listDiscoveries(userId: string, executionId: string, type: string, n: number) {
    return this.store.listDiscoveries(this.owner(userId), executionId, type, limit(n));
  }

  discoveryStats(userId: string) {
    return this.store.discoveryStats(this.owner(userId));
  }

  search(userId: string, query: string, types: string[], n: number) {
    const q = parseOrThrow(z.string().trim().min(1, 'query is required').max(500), query, 'query');
    return this.store.search(
      this.owner(userId),
      [q],
      types.map((t) => t.toUpperCase()),
      limit(n),
    );
  }

  async neighbourhood(userId: string, entityId: string, maxHops: number, maxNodes: number) {
    const id = parseOrThrow(uuid('entity_id'), entityId, 'entity_id');
    const hops = parseOrThrow(z.number().int().min(0).max(5), maxHops || 1, 'max_hops');
    const cap = parseOrThrow(
      z.number().int().min(1).max(this.maxNodes, `max_nodes may be at most ${this.maxNodes}`),
      maxNodes || 200,
      'max_nodes',
    );
    const [root] = await this.store.entities(this.owner(userId), [id]);
    if (!root) throw AppError.notFound('entity', id);
    return this.store.subgraph(this.owner(userId), [root.id], hops, cap);
  }

  async analyze(userId: string, algorithm: string, entities: string[], maxNodes: number) {
    const alg = parseOrThrow(z.enum(ALGORITHMS), algorithm, 'algorithm');
    const cap = parseOrThrow(
      z.number().int().min(1).max(this.maxNodes, `max_nodes may be at most ${this.maxNodes}`),
      maxNodes || 1000,
      'max_nodes',
    );
    const owner = this.owner(userId);
    let seeds: string[] | undefined;
    if (entities.length > 0 || alg === 'shortest_path') {
      seeds = [];
      for (const ref of entities) {
        const [hit] = await this.store.search(owner, [ref], [], 1);
        if (!hit) throw AppError.notFound('entity', ref);
        seeds.push(hit.id);
      }
      if (alg === 'shortest_path' && seeds.length < 2)
        throw AppError.invalid('entities', 'shortest_path needs two entities');
    }
    const sub = await this.store.subgraph(owner, seeds, alg === 'shortest_path' ? 5 : 2, cap);
    const out = analyse(
      alg,
      sub.nodes.map((n) => ({ id: n.id, name: n.name, type: n.type })),
      sub.edges.map((e) => ({ source: e.sourceId, target: e.targetId, type: e.type })),
      seeds && seeds.length >= 2 ? { from: seeds[0]!, to: seeds[1]! } : {},
    );
    return out;
  }
}
