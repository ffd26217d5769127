import { orchestrator } from '@af/contracts';
import * as R from './responses/index.js';
import { runSummaryView, runView } from './views.js';

const wire = (plan?: orchestrator.RunPlan): orchestrator.Run =>
  ({
    id: 'r1',
    status: orchestrator.RunStatus.RUN_STATUS_RUNNING,
    userId: 'u',
    runContext: 'interactive',
    planVersion: 1,
    nodes: [],
    outputs: {},
    error: '',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    inputs: {},
    parentRunId: '',
    parentNodeId: '',
    iterations: [],
    goalConditionResults: [],
    planVersions: [],
    policyFirings: [],
    policyGates: [],
    taskStatus: orchestrator.TaskStatus.TASK_STATUS_UNSPECIFIED,
    stepsCompleted: 0,
    stepsFailed: 0,
    stepsSkipped: 0,
    errorSummary: '',
    agentProfileId: '',
    invokedBy: '',
    teamId: '',
    connectorsCalled: [],
    entitiesDiscovered: 0,
    outputsProduced: [],
    plan,
  }) as orchestrator.Run;

describe('the run plan in run views', () => {
  const plan = {
    nodes: [
      { id: 'a', kind: 'tool', action: 'transform_data' },
      { id: 'b', kind: 'approval', action: '' },
    ],
    edges: [{ from: 'a', to: 'b', kind: 'depends_on' }],
  };

  it('GET /runs/{id} carries the steps (no action: null) and edges, and fits the Run schema', () => {
    const view = runView(wire(plan));
    expect(view.plan).toEqual({
      nodes: [
        { id: 'a', kind: 'tool', action: 'transform_data' },
        { id: 'b', kind: 'approval', action: null },
      ],
      edges: [{ from: 'a', to: 'b', kind: 'depends_on' }],
    });
    expect(R.Run.safeParse(view).success).toBe(true);
  });

  it('a run without a plan on the wire answers an empty graph', () => {
    expect(runView(wire()).plan).toEqual({ nodes: [], edges: [] });
  });

  it('list rows leave the plan out (the RunSummary schema is strict)', () => {
    const row = runSummaryView(wire(plan));
    expect(row).not.toHaveProperty('plan');
    expect(R.RunSummary.safeParse(row).success).toBe(true);
  });
});
