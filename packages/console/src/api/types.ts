/** The API answers the console reads (the gateway's OpenAPI document has them all). */

export interface NodeState {
  node_id: string;
  output_key: string;
  status: string;
  attempt: number;
  output: unknown;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
  wait_until: string | null;
  skip_reason: string | null;
  child_run_id: string | null;
}

export interface RunSummary {
  id: string;
  status: string;
  run_context: string;
  plan_version: number;
  error: string | null;
  task_status: string | null;
  steps_completed: number;
  steps_failed: number;
  steps_skipped: number;
  error_summary: string | null;
  /** The agent profile the run answered for, if any. */
  agent_profile_id?: string | null;
  created_at: string;
  updated_at: string;
  plan_versions: Array<{ version: number; source: string; rationale: string | null; created_at: string }>;
}

export interface Run extends RunSummary {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  nodes: NodeState[];
  iterations: NodeState[];
  policy_gates: NodeState[];
  /** The current plan version's steps and edges. */
  plan: { nodes: Array<{ id: string; kind: string; action: string | null }>; edges: Array<{ from: string; to: string; kind: string }> };
}

export interface Approval {
  id: string;
  kind: string;
  status: string;
  run_id: string | null;
  node_id: string | null;
  step_name: string | null;
  prompt: string;
  preview_data: unknown;
  details: Record<string, unknown>;
  output_schema: Record<string, unknown> | null;
  timeout_at: string | null;
  created_at: string;
}

export interface FlexTask {
  requestId: string;
  taskId?: string;
  kind: string;
  status: string;
  runId: string | null;
  pendingNodeId: string | null;
  capabilityId: string | null;
  operatorPrompt: string;
  outputSchema: Record<string, any> | null;
  dueAt: string | null;
  createdAt: string;
}

export interface PlaybookGraph {
  nodes: Array<{ id: string; kind: string; step_type: string; action: string | null; depends_on: string[] }>;
  edges: Array<{ from: string; to: string; kind: string }>;
  levels: string[][];
}

export const TERMINAL_RUN_STATUSES = ['completed', 'failed', 'cancelled'];
