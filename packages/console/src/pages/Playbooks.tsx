/**
 * Playbooks: the list, and an editor that validates the YAML as you type
 * (the validate route, half a second after the last key) and shows each
 * problem under the step it names, with its line; keys and values completed
 * from the playbook JSON Schema (and action names); save a new version; run it
 * with inputs from a form made from the playbook's `inputs`; the saved
 * revision's step graph.
 */
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, ApiError, type Violation } from '../api/client';
import { ErrorBanner, Loading } from '../components/ui';
import { errorsByField } from '../forms/schema';
import { SchemaForm } from '../forms/SchemaForm';
import { Link, navigate } from '../router';
import { inputsSchema, stepNames } from './playbook-inputs';
import { YamlEditor } from '../playbook/YamlEditor';

// The graph code (dagre) loads only when a saved playbook is open.
const StepGraph = lazy(() => import('../playbook/StepGraph'));

interface Playbook {
  id: string;
  name: string;
  version: string;
  revision: number;
  yaml: string;
  updated_at: string;
}

interface Validation {
  valid: boolean;
  errors: Violation[];
  warnings: Violation[];
  results: Array<{ step: string; valid: boolean; errors: Array<{ field: string; message: string; line?: number }> }>;
}

const NEW_PLAYBOOK = `id: my-playbook
name: My playbook
version: "1.0"
inputs:
  - name: items
    type: list
    default: [{ n: 3 }, { n: 1 }, { n: 2 }]
steps:
  - name: sorted
    step_type: tool
    action: transform_data
    inputs:
      data: "{items}"
    operations:
      - { type: sort, field: n, direction: asc }
`;

export default function PlaybooksPage({ playbookId }: { playbookId?: string }) {
  if (playbookId) return <PlaybookEditor key={playbookId} playbookId={playbookId === 'new' ? null : playbookId} />;
  return <PlaybookList />;
}

function PlaybookList() {
  const [playbooks, setPlaybooks] = useState<Playbook[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<{ playbooks: Playbook[] }>('GET', '/api/agent-factory/playbooks').then((r) => setPlaybooks(r.playbooks), setError);
  }, []);
  return (
    <section aria-labelledby="pb-title">
      <h1 id="pb-title">Playbooks</h1>
      <p>
        <Link href="/playbooks/new" className="button">
          New playbook
        </Link>
      </p>
      <ErrorBanner error={error} />
      {playbooks === null ? (
        <Loading what="playbooks" />
      ) : playbooks.length === 0 ? (
        <p>No playbooks yet.</p>
      ) : (
        <ul className="cards">
          {playbooks.map((p) => (
            <li key={p.id} className="card">
              <h2>
                <Link href={`/playbooks/${encodeURIComponent(p.id)}`}>{p.name}</Link>
              </h2>
              <p className="hint">
                <code>{p.id}</code> · revision {p.revision} · version {p.version}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function PlaybookEditor({ playbookId }: { playbookId: string | null }) {
  const [stored, setStored] = useState<Playbook | null>(null);
  const [yaml, setYaml] = useState<string | null>(playbookId ? null : NEW_PLAYBOOK);
  const [validation, setValidation] = useState<Validation | null>(null);
  const [validating, setValidating] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [runErrors, setRunErrors] = useState<Record<string, string>>({});
  const [runError, setRunError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const seq = useRef(0);

  useEffect(() => {
    if (!playbookId) return;
    api<{ playbook: Playbook }>('GET', `/api/agent-factory/playbooks/${encodeURIComponent(playbookId)}`).then(
      (r) => {
        setStored(r.playbook);
        setYaml(r.playbook.yaml);
      },
      setError,
    );
  }, [playbookId]);

  const validate = useCallback(
    async (text: string) => {
      const mine = ++seq.current;
      setValidating(true);
      try {
        const path = playbookId ? `/api/agent-factory/playbooks/${encodeURIComponent(playbookId)}/validate` : '/api/agent-factory/playbooks/validate';
        const v = await api<Validation>('POST', path, { body: { yaml: text } });
        if (mine === seq.current) setValidation(v);
      } catch (err) {
        // A 400 carries the same problems as violations.
        if (mine === seq.current && err instanceof ApiError) setValidation({ valid: false, errors: err.violations.length ? err.violations : [{ field: 'yaml', reason: err.message }], warnings: [], results: [] });
      } finally {
        if (mine === seq.current) setValidating(false);
      }
    },
    [playbookId],
  );

  useEffect(() => {
    if (yaml === null) return;
    const t = setTimeout(() => void validate(yaml), 500);
    return () => clearTimeout(t);
  }, [yaml, validate]);

  const schema = useMemo(() => inputsSchema(yaml ?? ''), [yaml]);

  const save = async () => {
    if (yaml === null) return;
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      if (playbookId) {
        const r = await api<{ playbook: Playbook; changed: boolean }>('PUT', `/api/agent-factory/playbooks/${encodeURIComponent(playbookId)}`, { body: { yaml } });
        setStored(r.playbook);
        setSaved(r.changed ? `Saved as revision ${r.playbook.revision}.` : 'Nothing changed.');
      } else {
        const r = await api<{ playbook: Playbook }>('POST', '/api/agent-factory/playbooks', { body: { yaml } });
        navigate(`/playbooks/${encodeURIComponent(r.playbook.id)}`, true);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const run = async (inputs: unknown) => {
    if (!stored) return;
    setBusy(true);
    setRunErrors({});
    setRunError(null);
    try {
      const r = await api<{ run: { id: string } }>('POST', '/api/v1/runs', {
        body: { playbook_id: stored.id, playbook_revision: stored.revision, inputs },
        headers: { 'idempotency-key': crypto.randomUUID() },
      });
      navigate(`/runs/${r.run.id}`);
    } catch (err) {
      if (err instanceof ApiError) {
        const byField = errorsByField(err.violations, 'inputs');
        setRunErrors(byField);
        if (!err.violations.length || byField['']) setRunError(err);
      } else setRunError(err);
    } finally {
      setBusy(false);
    }
  };

  if (yaml === null) return error ? <ErrorBanner error={error} /> : <Loading what="playbook" />;
  const problems = validation?.errors ?? [];
  const steps = stepNames(yaml);
  const byStep = (s: string) => problems.filter((p) => p.step === s);
  const general = problems.filter((p) => !p.step || !steps.includes(p.step));
  const dirty = stored ? stored.yaml !== yaml : true;
  return (
    <section aria-labelledby="editor-title">
      <p>
        <Link href="/playbooks">← Playbooks</Link>
      </p>
      <h1 id="editor-title">{stored ? `${stored.name} (revision ${stored.revision})` : 'New playbook'}</h1>
      <div className="editor-layout">
        <YamlEditor value={yaml} onChange={setYaml} invalid={problems.length > 0} describedBy="validation-summary" />
        <div>
          <h2>Validation</h2>
          <p id="validation-summary" role="status" aria-live="polite" data-valid={validation ? String(validation.valid) : undefined}>
            {validating ? 'Checking…' : validation ? (validation.valid ? 'Valid.' : `${problems.length} problem${problems.length === 1 ? '' : 's'}.`) : ''}
          </p>
          {general.length ? <ProblemList problems={general} /> : null}
          <ol className="steps">
            {steps.map((s) => (
              <li key={s} data-step={s}>
                <strong>{s}</strong>
                {byStep(s).length ? <ProblemList problems={byStep(s)} /> : null}
              </li>
            ))}
          </ol>
          {validation?.warnings.length ? (
            <>
              <h3>Warnings</h3>
              <ProblemList problems={validation.warnings} warning />
            </>
          ) : null}
          <ErrorBanner error={error} />
          {saved ? <p role="status">{saved}</p> : null}
          <button disabled={busy || !dirty} onClick={() => void save()}>
            {playbookId ? 'Save new version' : 'Create playbook'}
          </button>
        </div>
      </div>
      {stored ? (
        <div className="panel">
          <h2 id="graph-title">Step graph (revision {stored.revision})</h2>
          {dirty ? <p className="hint">The graph shows the saved revision; save to see your edits.</p> : null}
          <Suspense fallback={<Loading what="step graph" />}>
            <StepGraph playbookId={stored.id} revision={stored.revision} />
          </Suspense>
        </div>
      ) : null}
      {stored ? (
        <div className="panel">
          <h2>Run</h2>
          {dirty ? <p className="hint">Runs use the saved revision {stored.revision}; save first to run your edits.</p> : null}
          <ErrorBanner error={runError} />
          <SchemaForm key={stored.revision} schema={inputsSchema(stored.yaml)} errors={runErrors} busy={busy} submitLabel="Start run" onSubmit={(v) => void run(v)} />
          {Object.keys(schema.properties).length === 0 ? <p className="hint">This playbook takes no inputs.</p> : null}
        </div>
      ) : null}
    </section>
  );
}

function ProblemList({ problems, warning }: { problems: Violation[]; warning?: boolean }) {
  return (
    <ul className={warning ? 'warnings' : 'problems'}>
      {problems.map((p, i) => (
        <li key={i} className={warning ? 'hint' : 'field-error'}>
          {p.line ? <span className="line">line {p.line}: </span> : null}
          <code>{p.field}</code> {p.reason}
          {p.suggestedFix && !p.reason.includes(p.suggestedFix) ? <span className="hint"> (did you mean “{p.suggestedFix}”?)</span> : null}
        </li>
      ))}
    </ul>
  );
}
