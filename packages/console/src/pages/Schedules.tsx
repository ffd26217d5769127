/**
 * Schedules: yours with their next fire and last run; pause / resume / run
 * now; recent fires; a new schedule (cron in a time zone, or an interval) for
 * a stored playbook, with the API's errors under the field they name.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { ErrorBanner, Loading, StatusBadge, TextArea, TextField } from '../components/ui';
import { Link } from '../router';
import { MonitorsSection } from './Monitors';

interface Schedule {
  id: string;
  name: string;
  paused: boolean;
  next_fire_at: string | null;
  last_run_at: string | null;
  last_run_id: string | null;
  last_run_status: string | null;
  missed_fires: number;
  definition: Record<string, any>;
}

interface Fire {
  fire_at: string;
  kind: string;
  status: string;
  run_id: string | null;
  reason: string | null;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

export default function SchedulesPage() {
  const [schedules, setSchedules] = useState<Schedule[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(async () => {
    try {
      setSchedules((await api<{ schedules: Schedule[] }>('GET', '/api/agent-factory/schedules')).schedules);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => void load(), [load]);
  return (
    <section aria-labelledby="schedules-title">
      <h1 id="schedules-title">Schedules</h1>
      <ErrorBanner error={error} />
      {schedules === null ? (
        <Loading what="schedules" />
      ) : schedules.filter((s) => !s.definition.monitor).length === 0 ? (
        <p>No schedules yet.</p>
      ) : (
        <ul className="cards">
          {schedules.filter((s) => !s.definition.monitor).map((s) => (
            <li key={s.id}>
              <ScheduleCard schedule={s} onChange={load} />
            </li>
          ))}
        </ul>
      )}
      <NewSchedule onCreated={load} />
      <MonitorsSection />
    </section>
  );
}

function ScheduleCard({ schedule, onChange }: { schedule: Schedule; onChange(): void }) {
  const [fires, setFires] = useState<Fire[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (action: 'pause' | 'resume' | 'run-now') => {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const r = await api<{ run_id?: string }>('POST', `/api/agent-factory/schedules/${encodeURIComponent(schedule.id)}/${action}`, { body: {} });
      if (action === 'run-now') setNote(r?.run_id ? `Started run ${r.run_id.slice(0, 8)}.` : 'Fire queued.');
      onChange();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const showFires = async () => setFires((await api<{ fires: Fire[] }>('GET', `/api/agent-factory/schedules/${encodeURIComponent(schedule.id)}/fires?limit=20`)).fires);
  const spec = schedule.definition.spec ?? {};
  return (
    <article className="card" aria-label={`Schedule ${schedule.name}`}>
      <h2>
        {schedule.name} {schedule.paused ? <StatusBadge status="paused" /> : null}
      </h2>
      <p className="hint">
        {spec.cron ? `cron ${spec.cron} (${spec.timezone ?? 'UTC'})` : spec.interval ? `every ${spec.interval}` : spec.at ? `once at ${when(spec.at)}` : ''} · playbook{' '}
        <code>{schedule.definition.target?.playbook_id ?? 'inline plan'}</code>
      </p>
      <dl className="node-detail">
        <dt>Next fire</dt>
        <dd data-next-fire>{schedule.paused ? 'paused' : when(schedule.next_fire_at)}</dd>
        <dt>Last run</dt>
        <dd>
          {schedule.last_run_id ? <Link href={`/runs/${schedule.last_run_id}`}>{schedule.last_run_id.slice(0, 8)}</Link> : '—'} {schedule.last_run_status ?? ''}
        </dd>
      </dl>
      <ErrorBanner error={error} />
      {note ? <p role="status">{note}</p> : null}
      <div className="actions">
        {schedule.paused ? (
          <button disabled={busy} onClick={() => void act('resume')}>
            Resume
          </button>
        ) : (
          <button disabled={busy} onClick={() => void act('pause')}>
            Pause
          </button>
        )}
        <button disabled={busy} onClick={() => void act('run-now')}>
          Run now
        </button>
        <button onClick={() => void showFires()}>Recent fires</button>
      </div>
      <Backfill scheduleId={schedule.id} onQueued={() => void showFires()} />
      {fires ? (
        fires.length === 0 ? (
          <p>No fires yet.</p>
        ) : (
          <ul>
            {fires.map((f) => (
              <li key={`${f.fire_at}-${f.kind}`}>
                {when(f.fire_at)} · {f.kind} · {f.status}
                {f.run_id ? (
                  <>
                    {' '}
                    · <Link href={`/runs/${f.run_id}`}>{f.run_id.slice(0, 8)}</Link>
                  </>
                ) : null}
                {f.reason ? ` · ${f.reason}` : ''}
              </li>
            ))}
          </ul>
        )
      ) : null}
    </article>
  );
}

function NewSchedule({ onCreated }: { onCreated(): void }) {
  const [name, setName] = useState('');
  const [playbookId, setPlaybookId] = useState('');
  const [kind, setKind] = useState<'cron' | 'interval'>('cron');
  const [cron, setCron] = useState('0 8 * * 1');
  const [timezone, setTimezone] = useState('UTC');
  const [interval, setInterval] = useState('1h');
  const [inputs, setInputs] = useState('{}');
  const [inputsError, setInputsError] = useState<string | undefined>();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(inputs || '{}');
      setInputsError(undefined);
    } catch {
      setInputsError('is not valid JSON');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/api/agent-factory/schedules', {
        body: { name, spec: kind === 'cron' ? { cron, timezone } : { interval }, target: { playbook_id: playbookId, inputs: parsed } },
      });
      setName('');
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const claimed = ['name', 'spec.cron', 'spec.timezone', 'spec.interval', 'target.playbook_id', 'target.inputs'];
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="new-schedule" noValidate>
      <h2 id="new-schedule">New schedule</h2>
      <ErrorBanner error={error} fields={claimed} />
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={fieldErr('name')} />
      <TextField label="Playbook id" value={playbookId} onChange={(e) => setPlaybookId(e.target.value)} error={fieldErr('target.playbook_id') ?? fieldErr('target')} />
      <fieldset className="field">
        <legend>When</legend>
        <label>
          <input type="radio" name="kind" checked={kind === 'cron'} onChange={() => setKind('cron')} /> cron
        </label>{' '}
        <label>
          <input type="radio" name="kind" checked={kind === 'interval'} onChange={() => setKind('interval')} /> interval
        </label>
      </fieldset>
      {kind === 'cron' ? (
        <>
          <TextField label="Cron (minute hour day month weekday)" value={cron} onChange={(e) => setCron(e.target.value)} error={fieldErr('spec.cron')} />
          <TextField label="Time zone (IANA)" value={timezone} onChange={(e) => setTimezone(e.target.value)} error={fieldErr('spec.timezone')} />
        </>
      ) : (
        <TextField label="Interval (90s, 15m, 4h, 1d)" value={interval} onChange={(e) => setInterval(e.target.value)} error={fieldErr('spec.interval')} />
      )}
      <TextArea label="Inputs (JSON)" rows={3} value={inputs} onChange={(e) => setInputs(e.target.value)} error={inputsError ?? fieldErr('target.inputs')} />
      <button type="submit" disabled={busy}>
        Create schedule
      </button>
    </form>
  );
}

/** Queue the fires of a past range (at most 1000; fires already recorded are not repeated). */
function Backfill({ scheduleId, onQueued }: { scheduleId: string; onQueued(): void }) {
  const [open, setOpen] = useState(false);
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  if (!open)
    return (
      <button type="button" className="link" onClick={() => setOpen(true)}>
        Backfill a past range…
      </button>
    );
  const iso = (local: string) => {
    const d = new Date(local);
    return Number.isNaN(d.getTime()) ? local : d.toISOString();
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setNote(null);
    try {
      const r = await api<{ queued_fire_times: string[]; already_recorded: number }>('POST', `/api/agent-factory/schedules/${encodeURIComponent(scheduleId)}/backfill`, {
        body: { start_time: iso(start), end_time: iso(end) },
      });
      setNote(`Queued ${r.queued_fire_times.length} fire(s); ${r.already_recorded} already recorded.`);
      onQueued();
    } catch (err) {
      setError(err);
    }
  };
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  return (
    <form onSubmit={submit} noValidate aria-label="Backfill">
      <ErrorBanner error={error} fields={['start_time', 'end_time']} />
      <TextField label="From" type="datetime-local" value={start} onChange={(e) => setStart(e.target.value)} error={fieldErr('start_time')} />
      <TextField label="To" type="datetime-local" value={end} onChange={(e) => setEnd(e.target.value)} error={fieldErr('end_time')} />
      <button type="submit">Queue fires</button>
      {note ? <p role="status">{note}</p> : null}
    </form>
  );
}
