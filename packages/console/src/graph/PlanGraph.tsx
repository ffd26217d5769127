/** The plan graph: dagre positions, edges in SVG, each step a button coloured by its status. */
import { useMemo } from 'react';
import { layoutGraph, type GraphInputEdge } from './layout';

export interface PlanGraphProps {
  nodes: Array<{ id: string; status: string; detail?: string }>;
  edges: GraphInputEdge[];
  selected?: string | null;
  onSelect?(id: string): void;
  /** The graph's accessible name (default "Plan graph"). */
  label?: string;
}

export function PlanGraph({ nodes, edges, selected, onSelect, label = 'Plan graph' }: PlanGraphProps) {
  const ids = nodes.map((n) => n.id).join('\n');
  const edgeKey = edges.map((e) => `${e.from}>${e.to}`).join('\n');
  // Layout depends on the shape only: status changes recolour without moving anything.
  const layout = useMemo(() => layoutGraph(nodes.map((n) => ({ id: n.id })), edges), [ids, edgeKey]);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  return (
    <div className="graph-scroll">
      <div className="graph" style={{ width: layout.width, height: layout.height }} role="group" aria-label={label}>
        <svg width={layout.width} height={layout.height} aria-hidden="true">
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" fill="currentColor" />
            </marker>
          </defs>
          {layout.edges.map((e, i) => (
            <polyline
              key={i}
              className={`edge edge-${e.kind}`}
              data-edge={`${e.from}>${e.to}`}
              points={e.points.map((p) => `${p.x},${p.y}`).join(' ')}
              fill="none"
              stroke="currentColor"
              markerEnd="url(#arrow)"
            />
          ))}
        </svg>
        {layout.nodes.map((p) => {
          const n = byId.get(p.id)!;
          return (
            <button
              key={p.id}
              type="button"
              className={`node status-${n.status}${selected === p.id ? ' selected' : ''}`}
              data-node={p.id}
              data-status={n.status}
              aria-pressed={selected === p.id}
              style={{ left: p.x, top: p.y, width: p.width, height: p.height }}
              onClick={() => onSelect?.(p.id)}
            >
              <span className="node-name">{p.id}</span>
              <span className="node-status">{n.status}</span>
            </button>
          );
        })}
      </div>
    </div>
  );
}
