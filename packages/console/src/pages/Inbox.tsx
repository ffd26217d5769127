/**
 * Everything that waits for you: approvals (with their preview; approve or
 * reject with a reason) and human tasks (a form generated from the task's
 * output schema; the API's field errors appear under each field).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, query } from '../api/client';
import type { Approval, FlexTask } from '../api/types';
import { ErrorBanner, Loading, TextArea, TextField } from '../components/ui';
import { errorsByField } from '../forms/schema';
import { SchemaForm } from '../forms/SchemaForm';
import { Link } from '../router';

export default function InboxPage() {
  const [approvals, setApprovals] = useState<Approval[] | null>(null);
  const [tasks, setTasks] = useState<FlexTask[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    try {
      const [a, t] = await Promise.all([
        api<{ approvals: Approval[] }>('GET', `/api/agent-factory/approvals${query({ status: 'pending' })}`),
        api<{ tasks: FlexTask[] }>('GET', `/api/v1/flex/tasks${query({ status: 'pending' })}`),
      ]);
      setApprovals(a.approvals.filter((x) => x.kind !== 'human_task'));
      setTasks(t.tasks);
      setError(null);
    } catch (err) {
      setError(err);
    }
  }, []);

  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), 4_000);
    return () => clearInterval(t);
  }, [load]);

  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      <ErrorBanner error={error} />
      <h2>Approvals</h2>
      {approvals === null ? (
        <Loading what="approvals" />
      ) : approvals.length === 0 ? (
        <p>Nothing to approve.</p>
      ) : (
        <ul className="cards">
          {approvals.map((a) => (
            <li key={a.id}>{a.kind === 'clarify' ? <ClarifyCard request={a} onDone={load} /> : <ApprovalCard approval={a} onDone={load} />}</li>
          ))}
        </ul>
      )}
      <h2>Human tasks</h2>
      {tasks === null ? (
        <Loading what="tasks" />
      ) : tasks.length === 0 ? (
        <p>No tasks for you.</p>
      ) : (
        <ul className="cards">
          {tasks.map((t) => (
            <li key={t.requestId}>
              <TaskCard task={t} onDone={load} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ApprovalCard({ approval, onDone }: { approval: Approval; onDone(): void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const decide = async (decision: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/api/agent-factory/approvals/${encodeURIComponent(approval.id)}/${decision}`, {
        body: decision === 'reject' ? (reason ? { reason } : {}) : reason ? { instructions: reason } : {},
      });
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const title = approval.step_name ?? approval.node_id ?? 'Approval';
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  return (
    <article className="card" aria-label={`Approval: ${title}`}>
      <h3>{title}</h3>
      <p>{approval.prompt}</p>
      {approval.run_id ? (
        <p className="hint">
          Run <Link href={`/runs/${approval.run_id}`}>{approval.run_id.slice(0, 8)}</Link>
          {approval.timeout_at ? ` · times out ${new Date(approval.timeout_at).toLocaleString()}` : ''}
        </p>
      ) : null}
      {approval.preview_data !== null && approval.preview_data !== undefined ? (
        <details open>
          <summary>Preview</summary>
          <pre tabIndex={0}>{JSON.stringify(approval.preview_data, null, 2)}</pre>
        </details>
      ) : null}
      <ErrorBanner error={error} fields={['reason', 'instructions']} />
      <TextField label="Instructions or reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} error={fieldErr('reason') ?? fieldErr('instructions')} />
      <div className="actions">
        <button disabled={busy} onClick={() => void decide('approve')}>
          Approve
        </button>
        <button disabled={busy} className="danger" onClick={() => void decide('reject')}>
          Reject
        </button>
      </div>
    </article>
  );
}

const DECLINE_REASONS = ['not_qualified', 'insufficient_information', 'out_of_scope', 'conflict_of_interest', 'unavailable', 'other'];

/** A question the run asks; the answer resumes it. */
function ClarifyCard({ request, onDone }: { request: Approval; onDone(): void }) {
  const [answer, setAnswer] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/api/v1/flex/run.resume', { body: { runId: request.run_id, requestId: request.id, answer } });
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const title = request.step_name ?? request.node_id ?? 'Question';
  return (
    <article className="card" aria-label={`Question: ${title}`}>
      <h3>{title}</h3>
      <p>{request.prompt}</p>
      <form onSubmit={submit} noValidate>
        <ErrorBanner error={error} fields={['answer']} />
        <TextArea label="Your answer" rows={3} value={answer} onChange={(e) => setAnswer(e.target.value)} error={error instanceof ApiError ? error.forField('answer') : undefined} />
        <button type="submit" disabled={busy}>
          Answer
        </button>
      </form>
    </article>
  );
}

/** Decline a human task with a reason code; the run goes on as the task's decline policy says. */
function DeclineForm({ taskId, onDone }: { taskId: string; onDone(): void }) {
  const [open, setOpen] = useState(false);
  const [code, setCode] = useState('other');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  if (!open)
    return (
      <button type="button" className="link" onClick={() => setOpen(true)}>
        Decline this task…
      </button>
    );
  const decline = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api('POST', `/api/v1/flex/tasks/${encodeURIComponent(taskId)}/decline`, { body: { reasonCode: code, ...(reason ? { reason } : {}) } });
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  return (
    <form onSubmit={decline} noValidate aria-label="Decline the task">
      <ErrorBanner error={error} fields={['reasonCode', 'reason']} />
      <div className="field">
        <label htmlFor={`decline-${taskId}`}>Reason code</label>
        <select id={`decline-${taskId}`} value={code} onChange={(e) => setCode(e.target.value)}>
          {DECLINE_REASONS.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        {fieldErr('reasonCode') ? <p className="field-error" role="alert">{fieldErr('reasonCode')}</p> : null}
      </div>
      <TextField label="Reason (optional)" value={reason} onChange={(e) => setReason(e.target.value)} error={fieldErr('reason')} />
      <button type="submit" className="danger">
        Decline
      </button>
    </form>
  );
}

function TaskCard({ task, onDone }: { task: FlexTask; onDone(): void }) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const taskId = task.taskId ?? task.requestId;
  const submit = async (output: unknown) => {
    setBusy(true);
    setError(null);
    setErrors({});
    try {
      await api('POST', '/api/v1/flex/run.resume', { body: { runId: task.runId, taskId, output } });
      setDone(true);
      onDone();
    } catch (err) {
      if (err instanceof ApiError && err.violations.length) setErrors(errorsByField(err.violations, 'output'));
      else setError(err);
    } finally {
      setBusy(false);
    }
  };
  const title = task.capabilityId ?? task.pendingNodeId ?? 'Task';
  return (
    <article className="card" aria-label={`Task: ${title}`}>
      <h3>{title}</h3>
      <p>{task.operatorPrompt}</p>
      {task.runId ? (
        <p className="hint">
          Run <Link href={`/runs/${task.runId}`}>{task.runId.slice(0, 8)}</Link> · step {task.pendingNodeId}
        </p>
      ) : null}
      <ErrorBanner error={error} />
      {done ? (
        <p role="status">Submitted.</p>
      ) : (
        <>
          <SchemaForm schema={task.outputSchema} errors={errors} busy={busy} onSubmit={(v) => void submit(v)} />
          <DeclineForm taskId={taskId} onDone={onDone} />
        </>
      )}
    </article>
  );
}
