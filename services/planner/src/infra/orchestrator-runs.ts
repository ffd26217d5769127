/**
 * An ended run as the orchestrator reports it (GetRun as the run's invoker),
 * in the shape the journal is drafted from (domain/journal/journal-entry.ts).
 */
import { orchestrator } from '@af/contracts';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { EndedRunSource } from '../app/agent-runs.js';
import type { FinishedRun } from '../domain/journal/journal-entry.js';

const lower = (name: string, prefix: string) => name.replace(prefix, '').toLowerCase();

/** The wire run as a FinishedRun (node kinds and actions come with GetRun's nodes). */
export function finishedRunFromWire(run: orchestrator.Run): FinishedRun {
  return {
    status: lower(orchestrator.runStatusToJSON(run.status), 'RUN_STATUS_'),
    task_status: run.taskStatus ? lower(orchestrator.taskStatusToJSON(run.taskStatus), 'TASK_STATUS_') : '',
    error: run.error,
    error_summary: run.errorSummary,
    steps_completed: run.stepsCompleted,
    nodes: run.nodes.map((n) => ({
      node_id: n.nodeId,
      kind: n.kind,
      action: n.action,
      status: lower(orchestrator.nodeStatusToJSON(n.status), 'NODE_STATUS_'),
      error: n.error,
      output: n.outputJson ? (JSON.parse(n.outputJson) as unknown) : null,
    })),
    inputs: run.inputs ?? {},
    connectors_called: run.connectorsCalled,
    entities_discovered: run.entitiesDiscovered,
    outputs_produced: run.outputsProduced,
  };
}

export function orchestratorRuns(address: string, auth: PrincipalSigner, timeoutMs = 15_000): EndedRunSource {
  const client = createGrpcClient<orchestrator.OrchestratorServiceClient>('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, address, { auth, readyWaitMs: 5_000 });
  return {
    async finished(invokedBy, runId) {
      try {
        const { run } = await call(client.getRun({ principal: { userId: invokedBy, teamIds: [] }, runId }), timeoutMs);
        return run ? finishedRunFromWire(run) : undefined;
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
        throw err;
      }
    },
  };
}
