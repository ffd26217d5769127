/**
 * One run: its plan graph coloured live from the run's event stream, the
 * selected step's detail (status, attempts, output, error), pause / resume /
 * cancel, and the event log.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api/client';
import { followRun, type RunFrame } from '../api/sse';
import { TERMINAL_RUN_STATUSES, type NodeState, type Run } from '../api/types';
import { ErrorBanner, Loading, StatusBadge } from '../components/ui';
import { PlanGraph } from '../graph/PlanGraph';
import { Link } from '../router';
import { statusFromFrame } from './run-frames';

export default function RunPage({ runId }: { runId: string }) {
  const [run, setRun] = useState<Run | null>(null);
  const [frames, setFrames] = useState<RunFrame[]>([]);
  const [live, setLive] = useState<Record<string, string>>({});
  const [selected, setSelected] = useState<string | null>(null);
  const [stream, setStream] = useState<string>('connecting');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const refetchTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const load = useCallback(async () => {
    try {
      const r = await api<{ run: Run }>('GET', `/api/v1/runs/${encodeURIComponent(runId)}`);
      setRun(r.run);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, [runId]);

  useEffect(() => {
    void load();
    const handle = followRun(runId, {
      onFrame: (f) => {
        setFrames((old) => [...old, f]);
        const s = statusFromFrame(f);
        if (s && f.nodeId) setLive((old) => ({ ...old, [f.nodeId!]: s }));
        // Read the run again (outputs, errors, attempts) shortly after things change.
        if (refetchTimer.current) clearTimeout(refetchTimer.current);
        refetchTimer.current = setTimeout(() => void load(), f.type === 'complete' ? 0 : 300);
      },
      onState: setStream,
    });
    return () => {
      handle.close();
      if (refetchTimer.current) clearTimeout(refetchTimer.current);
    };
  }, [runId, load]);

  const nodes = useMemo(() => {
    const states = new Map<string, NodeState>((run?.nodes ?? []).map((n) => [n.node_id, n]));
    const ids = [...(run?.plan?.nodes.map((n) => n.id) ?? []), ...states.keys(), ...Object.keys(live).filter((id) => !id.includes('['))];
    return [...new Set(ids)].map((id) => {
      const st = states.get(id)?.status;
      // The stored state wins once it is final; otherwise the newest frame.
      const status = st && ['completed', 'failed', 'skipped', 'cancelled'].includes(st) ? st : live[id] ?? st ?? 'pending';
      return { id, status };
    });
  }, [run, live]);

  // The run's own plan (its current version) carries the edges, whoever started it.
  const edges = run?.plan?.edges ?? [];

  const act = async (action: 'pause' | 'resume' | 'cancel' | 'replan') => {
    setBusy(true);
    try {
      // A replan compiles the stored playbook the run started with again (plan version N+1; completed steps kept).
      const body = action === 'replan' ? { rationale: 'replanned from the console', expected_plan_version: run?.plan_version } : {};
      await api('POST', `/api/v1/runs/${encodeURIComponent(runId)}/${action}`, { body });
      await load();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (!run && !error) return <Loading what="run" />;
  const node = run?.nodes.find((n) => n.node_id === selected) ?? run?.policy_gates.find((n) => n.node_id === selected);
  const terminal = run ? TERMINAL_RUN_STATUSES.includes(run.status) : true;
  return (
    <section aria-labelledby="run-title">
      <p>
        <Link href="/runs">← Runs</Link>
      </p>
      <h1 id="run-title">
        Run <code>{runId.slice(0, 8)}</code> {run ? <StatusBadge status={run.status} /> : null}
      </h1>
      <ErrorBanner error={error} />
      {run ? (
        <>
          <p className="meta">
            Outcome: {run.task_status ?? '—'} · plan version {run.plan_version} · stream: <span data-stream-state={stream}>{stream}</span>
            {run.error ? <span className="field-error"> · {run.error}</span> : null}
          </p>
          <div className="actions" role="group" aria-label="Run actions">
            <button disabled={busy || terminal || run.status === 'paused'} onClick={() => void act('pause')}>
              Pause
            </button>
            <button disabled={busy || run.status !== 'paused'} onClick={() => void act('resume')}>
              Resume
            </button>
            <button disabled={busy || terminal} onClick={() => void act('cancel')}>
              Cancel
            </button>
            <button disabled={busy || terminal} onClick={() => void act('replan')}>
              Replan
            </button>
          </div>
          {run.plan_versions.length > 1 ? (
            <details>
              <summary>Plan versions ({run.plan_versions.length})</summary>
              <ol>
                {run.plan_versions.map((v) => (
                  <li key={v.version}>
                    version {v.version} · {v.source}
                    {v.rationale ? ` · ${v.rationale}` : ''} · {new Date(v.created_at).toLocaleString()}
                  </li>
                ))}
              </ol>
            </details>
          ) : null}
        </>
      ) : null}
      <div className="run-layout">
        <div>
          <h2>Plan</h2>
          {nodes.length ? <PlanGraph nodes={nodes} edges={edges} selected={selected} onSelect={setSelected} /> : <p>No steps yet.</p>}
        </div>
        <aside aria-label="Step detail" className="detail">
          <h2>Step</h2>
          {node ? <NodeDetail node={node} frames={frames.filter((f) => f.nodeId === node.node_id)} /> : <p>Select a step in the graph.</p>}
        </aside>
      </div>
      {run ? (
        <details>
          <summary>Inputs and outputs</summary>
          <h3>Inputs</h3>
          <pre tabIndex={0}>{JSON.stringify(run.inputs, null, 2)}</pre>
          <h3>Outputs</h3>
          <pre tabIndex={0}>{JSON.stringify(run.outputs, null, 2)}</pre>
        </details>
      ) : null}
      <h2>Event log</h2>
      <ul className="event-log" aria-live="polite" aria-relevant="additions">
        {frames.map((f) => (
          <li key={f.id}>
            <code>{f.id}</code> <strong>{f.type}</strong> {f.nodeId ? <span>{f.nodeId}</span> : null}{' '}
            <span className="hint">{new Date(f.timestamp).toLocaleTimeString()}</span>
            {f.payload?.error ? <span className="field-error"> {String(f.payload.error)}</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function NodeDetail({ node, frames }: { node: NodeState; frames: RunFrame[] }) {
  const attempts = frames.filter((f) => f.type === 'node_start').length || node.attempt;
  return (
    <dl className="node-detail">
      <dt>Step</dt>
      <dd>{node.node_id}</dd>
      <dt>Status</dt>
      <dd>
        <StatusBadge status={node.status} />
        {node.skip_reason ? ` (${node.skip_reason})` : ''}
      </dd>
      <dt>Attempts</dt>
      <dd>{attempts}</dd>
      <dt>Started / finished</dt>
      <dd>
        {node.started_at ? new Date(node.started_at).toLocaleTimeString() : '—'} / {node.finished_at ? new Date(node.finished_at).toLocaleTimeString() : '—'}
      </dd>
      {node.error ? (
        <>
          <dt>Error</dt>
          <dd className="field-error">{node.error}</dd>
        </>
      ) : null}
      <dt>Inputs</dt>
      <dd>
        {frames.find((f) => f.type === 'node_complete' && f.payload?.inputs) ? (
          <pre tabIndex={0}>{JSON.stringify(frames.find((f) => f.type === 'node_complete')!.payload.inputs, null, 2)}</pre>
        ) : (
          <span className="hint">resolved inside the run (see the run's inputs)</span>
        )}
      </dd>
      <dt>Output</dt>
      <dd>
        <pre tabIndex={0}>{node.output === null || node.output === undefined ? '—' : JSON.stringify(node.output, null, 2)}</pre>
      </dd>
    </dl>
  );
}
