/**
 * The query stream's events: the seed's names where it has one (`plan`,
 * `hitl_required`, `hitl_approved`, `hitl_denied`, `hitl_timeout`, `token`,
 * `sources`, `done`, `error`), our run frames under their own names
 * otherwise (`node_start`, `node_complete`, `node_error`, `complete`, …).
 * Every event's data is one of our frames: `{type, id, timestamp, payload,
 * runId?, nodeId?}`.
 */

export interface RunFrame {
  type: string;
  seq: number;
  timestamp: string;
  nodeId?: string;
  payload: Record<string, unknown>;
}

export interface QueryEvent {
  type: string;
  payload: Record<string, unknown>;
  nodeId?: string;
}

const GATE = '__approval';
const agentOf = (nodeId: string | undefined) => (nodeId?.endsWith(GATE) ? nodeId.slice(0, -GATE.length) : (nodeId ?? ''));

/** The event a run frame is streamed as. */
export function queryEventOf(f: RunFrame): QueryEvent {
  const p = f.payload;
  if (f.type === 'hitl_request' && p.kind === 'tool_hitl') {
    const timeoutAt = typeof p.timeoutAt === 'string' ? Date.parse(p.timeoutAt) : NaN;
    return {
      type: 'hitl_required',
      ...(f.nodeId ? { nodeId: f.nodeId } : {}),
      payload: {
        request_id: p.requestId ?? null,
        agent_id: p.agentId ?? agentOf(f.nodeId),
        agent_name: p.agentName ?? null,
        tool_names: p.toolNames ?? [],
        task_description: p.taskDescription ?? null,
        timeout_seconds: Number.isFinite(timeoutAt) ? Math.max(0, Math.round((timeoutAt - Date.parse(f.timestamp)) / 1000)) : null,
      },
    };
  }
  if (f.type === 'log' && p.event === 'decision' && typeof p.hitlEvent === 'string' && p.kind === 'tool_hitl') {
    return { type: p.hitlEvent, ...(f.nodeId ? { nodeId: f.nodeId } : {}), payload: { request_id: p.requestId ?? null, agent_id: agentOf(f.nodeId) } };
  }
  return { type: f.type, payload: p, ...(f.nodeId ? { nodeId: f.nodeId } : {}) };
}

interface WireNode {
  nodeId: string;
  status: string;
  error: string;
  outputJson: string;
}

/** The ended run as the composer reads it. */
export function runForComposer(run: { status: string; error: string; nodes: readonly WireNode[] }): Record<string, unknown> {
  return {
    status: run.status,
    error: run.error,
    nodes: run.nodes.map((n) => ({ node_id: n.nodeId, status: n.status, error: n.error, output: n.outputJson ? (JSON.parse(n.outputJson) as unknown) : null })),
  };
}
