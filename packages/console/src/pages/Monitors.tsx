/**
 * Monitors (schedules that poll with a detection step): interval and active
 * hours, next check, pause / resume / check now, the dashboard figures over
 * the last fires, and the watermarks of each detection step (set one, reset
 * one or all; errors under the field they name). A monitor is created and
 * edited here too: name, stored playbook, interval, active hours and
 * whether an empty cycle stays quiet, the API's errors under each field.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { ErrorBanner, Loading, StatusBadge, TextField } from '../components/ui';
import { Link } from '../router';
import { formatDuration } from './durations';

interface Monitor {
  id: string;
  name: string;
  paused: boolean;
  next_fire_at: string | null;
  last_run_id: string | null;
  last_run_status: string | null;
  definition: Record<string, any>;
  monitor_config: { interval?: number | string; active_hours?: { start: string; end: string; timezone?: string }; suppress_if_empty?: boolean } | null;
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

/** The API names a monitor's settings `monitor.interval` (or `monitor_config.interval`): both land under the same field. */
function monitorFieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  for (const name of [field, `monitor.${field}`, `monitor_config.${field}`]) {
    const reason = error.forField(name);
    if (reason) return reason;
  }
  return error.violations.find((v) => v.field.startsWith(`monitor.${field}.`) || v.field.startsWith(`monitor_config.${field}.`))?.reason;
}

const MONITOR_FIELDS = ['name', 'target', 'target.playbook_id', 'target.plan.nodes', 'steps', 'monitor', 'monitor.interval', 'monitor_config.interval', 'monitor.active_hours', 'monitor.active_hours.start', 'monitor.active_hours.end', 'monitor.active_hours.timezone', 'monitor_config.active_hours.start', 'monitor_config.active_hours.end', 'monitor_config.active_hours.timezone'];
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
  const [creating, setCreating] = useState(false);
  return (
    <section aria-labelledby="monitors-title">
      <h2 id="monitors-title">Monitors</h2>
      <ErrorBanner error={error} />
      {creating ? (
        <MonitorForm
          onDone={(saved) => {
            setCreating(false);
            if (saved) void load();
          }}
        />
      ) : (
        <button onClick={() => setCreating(true)}>New monitor…</button>
      )}
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
  const [editing, setEditing] = useState(false);
  if (editing)
    return (
      <article className="card" aria-label={`Monitor ${monitor.name}`}>
        <MonitorForm
          monitor={monitor}
          onDone={(saved) => {
            setEditing(false);
            if (saved) onChange();
          }}
        />
      </article>
    );
  return (
    <article className="card" aria-label={`Monitor ${monitor.name}`}>
      <h3>
        {monitor.name} {monitor.paused ? <StatusBadge status="paused" /> : null}
      </h3>
      <p className="hint">
        every {cfg.interval !== undefined ? formatDuration(cfg.interval) : '?'}
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
        <button onClick={() => setEditing(true)}>Edit</button>
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

/**
 * Create a monitor (no `monitor` given) or edit one: PUT replaces the whole
 * definition, so what the form does not show (target inputs, policies,
 * retries, timeout, query template) is sent back as stored.
 */
function MonitorForm({ monitor, onDone }: { monitor?: Monitor; onDone(saved: boolean): void }) {
  const cfg = monitor?.monitor_config ?? {};
  const def = monitor?.definition ?? {};
  const [name, setName] = useState(monitor?.name ?? '');
  const [playbookId, setPlaybookId] = useState<string>(def.target?.playbook_id ?? '');
  const [interval, setIntervalText] = useState(cfg.interval !== undefined ? formatDuration(cfg.interval) : '15m');
  const [start, setStart] = useState(cfg.active_hours?.start ?? '');
  const [end, setEnd] = useState(cfg.active_hours?.end ?? '');
  const [timezone, setTimezone] = useState(cfg.active_hours?.timezone ?? 'UTC');
  const [quiet, setQuiet] = useState(cfg.suppress_if_empty ?? true);
  const [playbooks, setPlaybooks] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const inlinePlan = Boolean(monitor && !def.target?.playbook_id);
  useEffect(() => {
    api<{ playbooks: Array<{ id: string }> }>('GET', '/api/agent-factory/playbooks')
      .then((r) => setPlaybooks((r.playbooks ?? []).map((p) => p.id)))
      .catch(() => setPlaybooks([]));
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    const monitor_config: Record<string, unknown> = { interval: interval.trim(), suppress_if_empty: quiet };
    if (start || end) monitor_config.active_hours = { start, end, timezone };
    const target = inlinePlan ? def.target : { ...(def.target?.playbook_id === playbookId ? def.target : {}), playbook_id: playbookId.trim() };
    const kept: Record<string, unknown> = {};
    for (const k of ['description', 'query_template', 'approval_policy', 'overlap_policy', 'max_retries', 'timeout_seconds'] as const) if (def[k] !== undefined) kept[k] = def[k];
    for (const k of ['catchup_window', 'jitter'] as const) if (typeof def[k] === 'number') kept[k] = formatDuration(def[k]);
    try {
      if (monitor) await api('PUT', `/api/agent-factory/monitors/${encodeURIComponent(monitor.id)}`, { body: { ...kept, name, monitor_config, target } });
      else await api('POST', '/api/agent-factory/monitors', { body: { name, monitor_config, target } });
      onDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const fe = (f: string) => monitorFieldError(error, f);
  // What is wrong with the playbook itself (no detection step, a step that cannot run) goes under the playbook field.
  const playbookViolations = error instanceof ApiError ? error.violations.filter((v) => v.field === 'target' || v.field.startsWith('target.') || v.field === 'steps' || v.field.startsWith('steps[') || v.field.startsWith('steps.')) : [];
  const playbookError = playbookViolations.length ? playbookViolations.map((v) => (v.field.startsWith('steps') && v.field !== 'steps' ? `${v.field}: ${v.reason}` : v.reason)).join('; ') : undefined;
  const title = monitor ? `Edit monitor ${monitor.name}` : 'New monitor';
  const listId = `${monitor?.id ?? 'new'}-monitor-playbooks`;
  return (
    <form className="panel" onSubmit={submit} noValidate aria-label={title}>
      <h3>{title}</h3>
      <ErrorBanner error={error} fields={[...MONITOR_FIELDS, ...playbookViolations.map((v) => v.field)]} />
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={fe('name')} />
      {inlinePlan ? (
        <p className="hint">Runs an inline plan (set through the API).</p>
      ) : (
        <>
          <TextField label="Playbook" value={playbookId} onChange={(e) => setPlaybookId(e.target.value)} list={listId} error={playbookError} hint="A stored playbook with a detection step." />
          <datalist id={listId}>
            {playbooks.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </>
      )}
      <TextField label="Interval" value={interval} onChange={(e) => setIntervalText(e.target.value)} error={fe('interval')} hint="At least 1m: 15m, 4h, 1d." />
      <fieldset>
        <legend>Active hours (optional)</legend>
        <TextField label="From (HH:MM)" value={start} onChange={(e) => setStart(e.target.value)} error={fe('active_hours.start')} />
        <TextField label="Until (HH:MM)" value={end} onChange={(e) => setEnd(e.target.value)} error={fe('active_hours.end')} />
        <TextField label="Time zone" value={timezone} onChange={(e) => setTimezone(e.target.value)} error={fe('active_hours.timezone') ?? fe('active_hours')} />
      </fieldset>
      <div className="field">
        <label>
          <input type="checkbox" checked={quiet} onChange={(e) => setQuiet(e.target.checked)} /> Stay quiet when nothing is new
        </label>
      </div>
      <div className="actions">
        <button type="submit" disabled={busy}>
          {monitor ? 'Save monitor' : 'Create monitor'}
        </button>
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
