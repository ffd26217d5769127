import { ScriptedChatModel } from '@af/llm';
import { FacetContractCompiler } from '@af/plan';
import { createLogger } from '@af/service-kit';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG_DIR, marketingCapabilities, marketingCatalog } from '../../test/fixtures/marketing-catalog.js';
import { DeterministicPlanner } from '../domain/planning/planner.js';
import type { CapabilityView } from '../domain/planning/types.js';
import { readableOwners, resolveByOwner, type Principal } from '../domain/registry/ownership.js';
import { LlmPlanner } from '../infra/llm-planner.js';
import type { CapabilityRegistry } from './capability-registry.service.js';
import type { FacetCatalogStore } from './facet-catalog.store.js';
import { PlanTaskUseCase } from './plan-task.use-case.js';

/**
 * PlanTask plans with what the caller may use: a registry holding the shared
 * catalog plus a look-alike copywriter of bob's (same facets, an id that sorts
 * first) — alice's plans and LLM prompts never contain it, bob's do.
 */
const catalog = marketingCatalog();
const shared = marketingCapabilities(catalog).map((view) => ({ owner: 'shared', view }));
const lookalike: CapabilityView = { ...shared.find((c) => c.view.capabilityId === 'copywriter.SocialpostDrafting')!.view, capabilityId: 'aaa.Lookalike', displayName: 'Totally the copywriter' };
const records = [...shared, { owner: 'user:bob', view: lookalike }];

function setup(model?: ScriptedChatModel) {
  const asked: Principal[] = [];
  const registry = {
    views: async (p: Principal) => {
      asked.push(p);
      return resolveByOwner(records, readableOwners(p), (r) => r.view.capabilityId, (r) => r.owner).map((r) => r.view);
    },
  } as unknown as CapabilityRegistry;
  const facets = { snapshot: async () => ({ catalog, compiler: new FacetContractCompiler(catalog), collections: new Map(), owners: new Map() }) } as unknown as FacetCatalogStore;
  const useCase = new PlanTaskUseCase({
    facets,
    registry,
    deterministic: new DeterministicPlanner(),
    ...(model ? { llm: new LlmPlanner({ model, modelName: 'scripted' }) } : {}),
    defaultRuntime: 'deterministic',
    maxAttempts: 1,
    log: createLogger('planner-test', 'silent'),
  });
  return { useCase, asked };
}

const envelope = () => JSON.parse(readFileSync(join(CATALOG_DIR, 'envelopes', 'new-case-post.json'), 'utf8')) as Record<string, unknown>;
const ids = (v: unknown) => JSON.stringify(v).includes('aaa.Lookalike');

describe('PlanTaskUseCase: planning sees only what the caller may use', () => {
  it('asks the registry as the caller with its teams; the deterministic plan never names another user’s look-alike', async () => {
    const { useCase, asked } = setup();
    const forAlice = await useCase.execute({ userId: 'alice', teamIds: ['red'], envelope: envelope() });
    expect(asked).toEqual([{ userId: 'alice', teamIds: ['red'] }]);
    expect(forAlice.outcome.plan).toBeDefined();
    expect(ids(forAlice.outcome.plan)).toBe(false);
    const forBob = await useCase.execute({ userId: 'bob', envelope: envelope() });
    expect(ids(forBob.outcome.plan)).toBe(true);
  });

  it('the LLM prompt tables list only the caller’s capabilities', async () => {
    const model = new ScriptedChatModel(Array.from({ length: 8 }, () => ({ json: { nodes: [] } })));
    const { useCase } = setup(model);
    const prompts = () => model.calls.map((c) => c.messages.map((m) => String(m.content)).join('\n')).join('\n');
    await useCase.execute({ userId: 'alice', envelope: envelope(), planner: 'llm' });
    const alice = prompts();
    await useCase.execute({ userId: 'bob', envelope: envelope(), planner: 'llm' });
    const bob = prompts().slice(alice.length);
    expect(alice).toContain('copywriter.SocialpostDrafting');
    expect(alice).not.toContain('aaa.Lookalike');
    expect(bob).toContain('aaa.Lookalike');
  });
});
