/**
 * A saved playbook's step graph from `GET /playbooks/{id}/graph`: the run
 * page's dagre graph with each step labelled by its step type, edges for
 * dependencies, fallbacks and routes, and the chosen step's action, side
 * effect and output types. Loaded on demand with the editor.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { ErrorBanner, Loading } from '../components/ui';
import { PlanGraph } from '../graph/PlanGraph';

export interface PlaybookGraphNode {
  id: string;
  kind: string;
  step_type: string;
  action: string | null;
  side_effect: boolean;
  depends_on: string[];
  outputs: Record<string, string>;
}

export interface PlaybookGraphAnswer {
  playbook_id: string;
  revision: number;
  nodes: PlaybookGraphNode[];
  edges: Array<{ from: string; to: string; kind: string }>;
  levels: string[][];
}

export default function StepGraph({ playbookId, revision }: { playbookId: string; revision: number }) {
  const [graph, setGraph] = useState<PlaybookGraphAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<string | null>(null);
  useEffect(() => {
    setError(null);
    api<{ graph: PlaybookGraphAnswer }>('GET', `/api/agent-factory/playbooks/${encodeURIComponent(playbookId)}/graph?revision=${revision}`).then((r) => setGraph(r.graph), setError);
  }, [playbookId, revision]);
  if (error) return <ErrorBanner error={error} />;
  if (!graph) return <Loading what="step graph" />;
  const node = graph.nodes.find((n) => n.id === selected);
  return (
    <div data-revision={graph.revision}>
      <p className="hint">
        {graph.nodes.length} step{graph.nodes.length === 1 ? '' : 's'} in {graph.levels.length} stage{graph.levels.length === 1 ? '' : 's'}; steps of a stage can run side by side.
      </p>
      <PlanGraph
        label="Step graph"
        nodes={graph.nodes.map((n) => ({ id: n.id, status: n.step_type }))}
        edges={graph.edges}
        selected={selected}
        onSelect={(id) => setSelected((s) => (s === id ? null : id))}
      />
      {node ? (
        <dl className="node-detail" data-step-detail={node.id}>
          <dt>Step</dt>
          <dd>
            <code>{node.id}</code> ({node.step_type})
          </dd>
          <dt>Action</dt>
          <dd>{node.action ? <code>{node.action}</code> : '—'}</dd>
          <dt>Acts outside the run</dt>
          <dd>{node.side_effect ? 'yes' : 'no'}</dd>
          <dt>Depends on</dt>
          <dd>{node.depends_on.length ? node.depends_on.join(', ') : '—'}</dd>
          <dt>Outputs</dt>
          <dd>
            {Object.keys(node.outputs).length
              ? Object.entries(node.outputs)
                  .map(([k, t]) => `${k}: ${t}`)
                  .join(', ')
              : '—'}
          </dd>
        </dl>
      ) : null}
    </div>
  );
}
