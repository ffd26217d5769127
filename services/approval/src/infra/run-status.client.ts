/** Asks the orchestrator what became of a run (GetRun as the run's owner), for the stale-request sweep. */
import { orchestrator } from '@af/contracts';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { RunState, RunStatusSource } from './request-sweeper.js';

const ENDED = new Set([orchestrator.RunStatus.RUN_STATUS_COMPLETED, orchestrator.RunStatus.RUN_STATUS_FAILED, orchestrator.RunStatus.RUN_STATUS_CANCELLED]);

export function orchestratorRunStatus(address: string, auth: PrincipalSigner): RunStatusSource {
  const client = createGrpcClient<orchestrator.OrchestratorServiceClient>('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, address, { auth, readyWaitMs: 5_000 });
  return {
    async state(ownerUserId: string, runId: string): Promise<{ state: RunState; status: string }> {
      try {
        const { run } = await call(client.getRun({ principal: { userId: ownerUserId, teamIds: [] }, runId }), 10_000);
        const status = orchestrator.runStatusToJSON(run!.status).replace('RUN_STATUS_', '').toLowerCase();
        return { state: ENDED.has(run!.status) ? 'ended' : 'active', status };
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return { state: 'gone', status: 'not_found' };
        throw err;
      }
    },
  };
}
