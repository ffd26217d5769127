import { createLogger } from '@af/service-kit';
import { NodeExecutors } from '../domain/node-executor.js';
import type { RunExecutionStore } from '../infra/run-execution.store.js';
import type { RunRepository } from '../infra/run.repository.js';
import { ExecuteRun, type ExecuteResult } from './execute-run.use-case.js';
import type { RunPolicies } from './run-policies.js';

/** ExecuteRun with its per-lease work (executeOwned) scripted: the queue-level decisions are what is tested here. */
function setup(status: () => string) {
  const repo = { get: jest.fn(async (id: string) => ({ id, status: status() })) } as unknown as RunRepository;
  const executor = new ExecuteRun(repo, {} as RunExecutionStore, new NodeExecutors(), { owner: 'A', leaseMs: 1000, concurrency: 2, nodeTimeoutMs: 1000 }, createLogger('test', 'silent'), {} as RunPolicies);
  const owned: Array<(r: ExecuteResult) => void> = [];
  const executeOwned = jest.fn(() => new Promise<ExecuteResult>((resolve) => owned.push(resolve)));
  (executor as unknown as { executeOwned: typeof executeOwned }).executeOwned = executeOwned;
  return { executor, repo: repo as unknown as { get: jest.Mock }, owned, executeOwned };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ExecuteRun.execute', () => {
  it('a second dispatch of a run executing here is dropped, and the run is taken again when it was queued meanwhile', async () => {
    let status = 'running';
    const { executor, owned, executeOwned } = setup(() => status);
    const first = executor.execute('r1');
    await tick();
    expect(await executor.execute('r1')).toBe('not_owner');
    // The execution parks; a resume queued the run in between.
    status = 'queued';
    owned[0]!('parked');
    await tick();
    expect(executeOwned).toHaveBeenCalledTimes(2);
    status = 'completed';
    owned[1]!('finished');
    expect(await first).toBe('finished');
  });

  it('without a second dispatch, a parked run is not looked at again', async () => {
    const { executor, owned, repo } = setup(() => 'queued');
    const first = executor.execute('r2');
    await tick();
    owned[0]!('parked');
    expect(await first).toBe('parked');
    expect(repo.get).not.toHaveBeenCalled();
  });

  it('remembers runs it finished: a late work item costs no lease query', async () => {
    const { executor, owned, executeOwned } = setup(() => 'completed');
    const first = executor.execute('r3');
    await tick();
    owned[0]!('finished');
    expect(await first).toBe('finished');
    expect(await executor.execute('r3')).toBe('not_owner');
    expect(executeOwned).toHaveBeenCalledTimes(1);
  });

  it('a lost lease is retaken while the run is queued (a request-side replan), at most a few times', async () => {
    const { executor, owned, executeOwned } = setup(() => 'queued');
    const first = executor.execute('r4');
    for (let i = 0; i < 4; i++) {
      await tick();
      owned[i]!('lease_lost');
    }
    expect(await first).toBe('lease_lost');
    expect(executeOwned).toHaveBeenCalledTimes(4);
  });
});
