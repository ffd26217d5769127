import { AppError } from '@af/service-kit';
import type { NodeContext } from '../../domain/node-executor.js';
import { appErrorOf, nodeContext } from '../../../test/unit/node-context.js';
import { WaitFor } from '../../domain/waiting.js';
import type { ApprovalService, ApprovalWaits, OpenRequest } from '../approval-port.js';
import { humanExecutor, type CapabilityHolders } from './human.executor.js';

/** The approval service in memory (records what was opened) and a registry answering `holders`. */
function setup(holders?: (capabilityId: string, timeoutMs: number) => Promise<string[]>) {
  const created: OpenRequest[] = [];
  const lookups: Array<[string, number]> = [];
  const approvals: ApprovalService = {
    create: async (r) => {
      created.push(r);
      return { id: `req-${created.length}`, kind: r.kind, status: 'pending', ownerUserId: r.ownerUserId, runId: r.runId, nodeId: r.nodeId, timeoutAt: null, resolution: null };
    },
    get: async () => {
      throw new Error('not used');
    },
    decide: async () => {
      throw new Error('not used');
    },
  };
  const waits = { register: async () => undefined } as unknown as ApprovalWaits;
  const registry: CapabilityHolders | undefined = holders && {
    of: (id, timeoutMs) => {
      lookups.push([id, timeoutMs]);
      return holders(id, timeoutMs);
    },
  };
  return { deps: { approvals, waits, holders: registry, retryDelayMs: () => 1 }, created, lookups };
}

const human = {
  id: 'review',
  kind: 'human',
  capabilityId: 'director.PositioningReview',
  description: 'Review the positioning',
  inputs: {},
  params: { assignees: ['ann', 'bob'] },
  outputSchema: { type: 'object' },
};

const ctx = (node: Record<string, unknown> = human, over: Partial<NodeContext> = {}): NodeContext => nodeContext(node, { userId: 'owner', timeoutMs: 60_000, ...over });
const failure = appErrorOf;

describe('humanExecutor: who the task goes to', () => {
  it('assigns the union of params.assignees and the holders the registry names, each once', async () => {
    const f = setup(async () => ['bob', 'cleo']);
    const out = await humanExecutor(f.deps)(ctx());
    expect(out).toBeInstanceOf(WaitFor);
    expect(f.lookups).toEqual([['director.PositioningReview', 10_000]]);
    expect(f.created[0]).toMatchObject({ capabilityId: 'director.PositioningReview', assigneeUserIds: ['ann', 'bob', 'cleo'], details: { registered_holders: ['bob', 'cleo'] } });
  });

  it('routes to the registered holders alone when the node names nobody', async () => {
    const f = setup(async () => ['cleo']);
    await humanExecutor(f.deps)(ctx({ ...human, params: {} }));
    expect(f.created[0]!.assigneeUserIds).toEqual(['cleo']);
  });

  it('reads the capability from params.capability_id when the node has no capabilityId', async () => {
    const f = setup(async () => ['cleo']);
    const { capabilityId: _omit, ...node } = human;
    await humanExecutor(f.deps)(ctx({ ...node, params: { capability_id: 'HumanAgent.review' } }));
    expect(f.lookups[0]![0]).toBe('HumanAgent.review');
    expect(f.created[0]).toMatchObject({ capabilityId: 'HumanAgent.review', assigneeUserIds: ['cleo'] });
  });

  it('keeps params.assignees when the capability names no holders (or is not registered)', async () => {
    const f = setup(async () => []);
    await humanExecutor(f.deps)(ctx());
    expect(f.created[0]!.assigneeUserIds).toEqual(['ann', 'bob']);
    expect(f.created[0]!.details).not.toHaveProperty('registered_holders');
  });

  it('does not ask the registry for a node without a capability, or without a registry', async () => {
    const f = setup(async () => ['cleo']);
    const { capabilityId: _omit, ...node } = human;
    await humanExecutor(f.deps)(ctx(node));
    expect(f.lookups).toEqual([]);
    expect(f.created[0]!.assigneeUserIds).toEqual(['ann', 'bob']);
    const none = setup();
    await humanExecutor(none.deps)(ctx());
    expect(none.created[0]!.assigneeUserIds).toEqual(['ann', 'bob']);
  });

  it('never waits for the registry past the node timeout', async () => {
    const f = setup(async () => []);
    await humanExecutor({ ...f.deps, registryTimeoutMs: 5_000 })(ctx(human, { timeoutMs: 2_000 }));
    await humanExecutor(f.deps)(ctx(human, { timeoutMs: 30_000 }));
    expect(f.lookups.map(([, ms]) => ms)).toEqual([2_000, 10_000]);
  });

  it('fails retryably, naming the capability, when the registry cannot answer — and opens no task', async () => {
    for (const cause of [new AppError('UNAVAILABLE', 'planner: connection refused'), new AppError('DEADLINE_EXCEEDED', 'call did not answer within 10000 ms'), new AppError('INTERNAL', 'boom'), new Error('socket hang up')]) {
      const f = setup(async () => {
        throw cause;
      });
      const err = await failure(humanExecutor(f.deps)(ctx()));
      expect(err.code).toBe('UNAVAILABLE');
      expect(err.retryable).toBe(true);
      expect(err.message).toBe(`node review: the holders of human capability 'director.PositioningReview' could not be read from the capability registry (planner): ${cause.message}`);
      expect(f.created).toEqual([]);
    }
  });

  it('fails without retrying when the registration itself is malformed', async () => {
    const f = setup(async () => {
      throw new AppError('FAILED_PRECONDITION', "the registration of capability 'director.PositioningReview' is malformed (assignmentDefaults.assignees must be an array of user ids): register it again", {
        violations: [{ field: 'assignmentDefaults.assignees', reason: 'must be an array of user ids' }],
        retryable: false,
      });
    });
    const err = await failure(humanExecutor(f.deps)(ctx()));
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false, violations: [{ field: 'assignmentDefaults.assignees' }] });
    expect(err.message).toContain("node review: the holders of human capability 'director.PositioningReview' cannot be read: the registration");
    expect(f.created).toEqual([]);
  });
});
