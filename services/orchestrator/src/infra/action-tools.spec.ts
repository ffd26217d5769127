import { defaultActionRegistry } from '@af/plan';
import { AppError } from '@af/service-kit';
import type { NodeContext } from '../domain/node-executor.js';
import { actionToolCall, actionTools, actionToolSchema } from './action-tools.js';

const registry = defaultActionRegistry();
const posts = registry.get('search_team_posts')!;

function ctx(params: Record<string, unknown>, teamIds: string[] = ['t1', 't2']): NodeContext {
  return { runId: 'r1', userId: 'bob', teamIds, instanceId: 'research', attempt: 1, idempotencyKey: 'r1:research:1', timeoutMs: 5_000, signal: new AbortController().signal, params } as unknown as NodeContext;
}

describe('action tools', () => {
  it('a team tool\'s team_id takes only the granted teams, by default the only one', () => {
    expect(actionToolSchema(posts, ['t1'])).toMatchObject({ properties: { team_id: { enum: ['t1'] }, query: { type: 'string' } }, required: ['query'] });
    expect(actionToolCall(posts, { query: 'acme', max_results: 5 }, ['t1'])).toEqual({ inputs: { query: 'acme', team_id: 't1' }, params: { max_results: 5 } });
    expect(() => actionToolCall(posts, { query: 'acme', team_id: 't9' }, ['t1', 't2'])).toThrow(AppError);
    expect(() => actionToolCall(posts, { query: 'acme' }, ['t1', 't2'])).toThrow(/team_id must be one of t1, t2/);
  });

  it('offers the registry actions the node names (not connector endpoints), team tools only with a granted team the run has', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const port = {
      servedBy: async (action: string) => ({ action, service: 'svc', address: 'x', sideEffects: false }),
      execute: async (_s: unknown, c: Record<string, unknown>) => {
        calls.push(c);
        return { outputs: { count: 0 }, replayed: false };
      },
    };
    const provider = actionTools(() => port as never);
    const names = async (params: Record<string, unknown>, teams?: string[]) => (await provider(ctx(params, teams))).map((t) => t.name);
    expect(await names({ tools: ['api__search', 'query_journal', 'search_team_posts', 'no_such_action', 'llm_analyze'], team_ids: ['t1'] })).toEqual(['query_journal', 'search_team_posts']);
    expect(await names({ tools: ['search_team_posts'] })).toEqual([]);
    expect(await names({ tools: ['search_team_posts'], team_ids: ['t3'] })).toEqual([]);
    const [tool] = await provider(ctx({ tools: ['search_team_posts'], team_ids: ['t1'] }));
    expect(await tool!.invoke({ query: 'acme' }, { sequence: 1, callId: 'c1' })).toEqual({ count: 0 });
    expect(calls[0]).toMatchObject({ action: 'search_team_posts', inputs: { query: 'acme', team_id: 't1' }, userId: 'bob', teamIds: ['t1', 't2'], runId: 'r1', nodeId: 'research' });
    expect(String(calls[0]!.idempotencyKey)).toMatch(/^r1:research:1:search_team_posts:[0-9a-f]{16}$/);
  });
});
