/**
 * Monitors (schedules that poll with a detection step): interval and active
 * hours, next check, pause / resume / check now, the dashboard figures over
 * the last fires, and the watermarks of each detection step (set one, reset
 * one or all; errors under the field they name).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { ErrorBanner, Loading, StatusBadge, TextField } from '../components/ui';
import { Link } from '../router';

interface Monitor {
  id: string;
  name: string;
  paused: boolean;
  next_fire_at: string | null;
  last_run_id: string | null;
  last_run_status: string | null;
  definition: Record<string, any>;
  monitor_config: { interval?: string; active_hours?: { start: string; end: string; timezone?: string }; suppress_if_empty?: boolean } | null;
}

interface Stats {
  fires: number;
  cycles: number;
  suppressed: number;
  found_last_cycle: number;
  skipped: number;
  outside_active_hours: number;
  failed: number;
  pending: number;
  last_fire_at: string | null;
  last_error: { fire_at: string; reason: string } | null;
}

interface Watermark {
  step_name: string;
  watermark_type: string;
  watermark_value: string;
  last_checked_at: string;
  items_found_last: number;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
const WATERMARK_TYPES = ['timestamp', 'cursor', 'hash', 'offset'];

export function MonitorsSection() {
  const [monitors, setMonitors] = useState<Monitor[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      setMonitors((await api<{ monitors: Monitor[] }>('GET', '/api/agent-factory/monitors')).monitors);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => void load(), [load]);
  return (
    <section aria-labelledby="monitors-title">
      <h2 id="monitors-title">Monitors</h2>
      <ErrorBanner error={error} />
      {monitors === null ? (
        <Loading what="monitors" />
      ) : monitors.length === 0 ? (
        <p>No monitors. A monitor is a schedule with a polling interval whose playbook has a detection step.</p>
      ) : (
        <ul className="cards">
          {monitors.map((m) => (
            <li key={m.id}>
              <MonitorCard monitor={m} onChange={load} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function MonitorCard({ monitor, onChange }: { monitor: Monitor; onChange(): void }) {
  const [stats, setStats] = useState<Stats | null>(null);
  const [watermarks, setWatermarks] = useState<Watermark[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const base = `/api/agent-factory/monitors/${encodeURIComponent(monitor.id)}`;
  const loadDetail = useCallback(async () => {
    try {
      const [s, w] = await Promise.all([api<{ stats: Stats }>('GET', `${base}/stats`), api<{ watermarks: Watermark[] }>('GET', `${base}/watermarks`)]);
      setStats(s.stats);
      setWatermarks(w.watermarks);
    } catch (err) {
      setError(err);
    }
  }, [base]);
  useEffect(() => void loadDetail(), [loadDetail]);
  const act = async (action: 'pause' | 'resume' | 'run-now') => {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const r = await api<{ run_id?: string }>('POST', `${base}/${action}`, { body: {} });
      if (action === 'run-now') setNote(r?.run_id ? `Checking now: run ${r.run_id.slice(0, 8)}.` : 'Check queued.');
      onChange();
      await loadDetail();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const reset = async (step?: string) => {
    setError(null);
    try {
      const r = await api<{ reset: number }>('POST', `${base}/reset-watermarks${step ? `?step=${encodeURIComponent(step)}` : ''}`, { body: {} });
      setNote(`Forgot ${r.reset} watermark(s): the next check sees everything as new.`);
      await loadDetail();
    } catch (err) {
      setError(err);
    }
  };
  const cfg = monitor.monitor_config ?? {};
  return (
    <article className="card" aria-label={`Monitor ${monitor.name}`}>
      <h3>
        {monitor.name} {monitor.paused ? <StatusBadge status="paused" /> : null}
      </h3>
      <p className="hint">
        every {cfg.interval ?? '?'}
        {cfg.active_hours ? ` · ${cfg.active_hours.start}–${cfg.active_hours.end} ${cfg.active_hours.timezone ?? ''}` : ''}
        {cfg.suppress_if_empty ? ' · quiet when nothing is new' : ''} · playbook <code>{monitor.definition.target?.playbook_id ?? 'inline plan'}</code>
      </p>
      <dl className="node-detail">
        <dt>Next check</dt>
        <dd data-next-fire>{monitor.paused ? 'paused' : when(monitor.next_fire_at)}</dd>
        <dt>Last run</dt>
        <dd>
          {monitor.last_run_id ? <Link href={`/runs/${monitor.last_run_id}`}>{monitor.last_run_id.slice(0, 8)}</Link> : '—'} {monitor.last_run_status ?? ''}
        </dd>
      </dl>
      {stats ? (
        <p className="meta" data-monitor-stats>
          {stats.cycles} cycles · {stats.suppressed} quiet · found last cycle {stats.found_last_cycle} · skipped {stats.skipped} ({stats.outside_active_hours} outside hours) · failed {stats.failed} · pending {stats.pending}
          {stats.last_error ? <span className="field-error"> · last error {when(stats.last_error.fire_at)}: {stats.last_error.reason}</span> : null}
        </p>
      ) : null}
      <ErrorBanner error={error} />
      {note ? <p role="status">{note}</p> : null}
      <div className="actions">
        {monitor.paused ? (
          <button disabled={busy} onClick={() => void act('resume')}>
            Resume
          </button>
        ) : (
          <button disabled={busy} onClick={() => void act('pause')}>
            Pause
          </button>
        )}
        <button disabled={busy} onClick={() => void act('run-now')}>
          Check now
        </button>
        <button onClick={() => void reset()}>Reset all watermarks</button>
      </div>
      <h4>Watermarks</h4>
      {watermarks === null ? (
        <Loading what="watermarks" />
      ) : watermarks.length === 0 ? (
        <p className="hint">None yet: the first check records them.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Kind</th>
                <th scope="col">Value</th>
                <th scope="col">Found last</th>
                <th scope="col">Checked</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {watermarks.map((w) => (
                <tr key={w.step_name} data-watermark={w.step_name}>
                  <td>{w.step_name}</td>
                  <td>{w.watermark_type}</td>
                  <td>
                    <code>{w.watermark_value}</code>
                  </td>
                  <td>{w.items_found_last}</td>
                  <td>{when(w.last_checked_at)}</td>
                  <td>
                    <button className="link" onClick={() => void reset(w.step_name)}>
                      Reset {w.step_name}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <SetWatermark base={base} steps={(watermarks ?? []).map((w) => w.step_name)} onSet={loadDetail} />
    </article>
  );
}

function SetWatermark({ base, steps, onSet }: { base: string; steps: string[]; onSet(): void }) {
  const [step, setStep] = useState('');
  const [type, setType] = useState('timestamp');
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api('PUT', `${base}/watermarks/${encodeURIComponent(step)}`, { body: { watermark_type: type, watermark_value: value } });
      setValue('');
      onSet();
    } catch (err) {
      setError(err);
    }
  };
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  return (
    <form onSubmit={submit} noValidate aria-label="Set a watermark">
      <ErrorBanner error={error} fields={['step', 'watermark_type', 'watermark_value']} />
      <TextField label="Detection step" value={step} onChange={(e) => setStep(e.target.value)} list={`${base}-steps`} error={fieldErr('step')} />
      <datalist id={`${base}-steps`}>
        {steps.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      <div className="field">
        <label htmlFor={`${base}-wtype`}>Kind</label>
        <select id={`${base}-wtype`} value={type} onChange={(e) => setType(e.target.value)}>
          {WATERMARK_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        {fieldErr('watermark_type') ? <p className="field-error" role="alert">{fieldErr('watermark_type')}</p> : null}
      </div>
      <TextField label="Value" value={value} onChange={(e) => setValue(e.target.value)} error={fieldErr('watermark_value')} />
      <button type="submit">Set watermark</button>
    </form>
  );
}
