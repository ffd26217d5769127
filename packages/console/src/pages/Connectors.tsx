/**
 * Connectors: yours, the template library (create one from a template with
 * its credentials), a test panel that calls one endpoint once and shows
 * the answer with the schema inferred from it, the YAML editor validated as
 * you type, and the agents bound to each.
 */
import { lazy, Suspense, useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import { ErrorBanner, Loading, TextArea, TextField } from '../components/ui';
import { ConnectorBindings } from './ConnectorBindings';

const ConnectorEditor = lazy(() => import('./ConnectorEditor'));

interface Connector {
  id: string;
  name: string;
  type: string;
  description: string;
  definition: Record<string, any>;
  credential_names: string[];
}

interface Template {
  id: string;
  name: string;
  type: string;
  description: string;
  category: string;
  auth_fields: string[];
}

export default function ConnectorsPage() {
  const [connectors, setConnectors] = useState<Connector[] | null>(null);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [chosen, setChosen] = useState<Template | null>(null);
  const [testing, setTesting] = useState<Connector | null>(null);
  const [editing, setEditing] = useState<Connector | null>(null);
  const [binding, setBinding] = useState<Connector | null>(null);

  const load = useCallback(async () => {
    try {
      const r = await api<{ connectors: Connector[]; templates?: Template[] }>('GET', '/api/agent-factory/connectors?include=templates');
      setConnectors(r.connectors);
      setTemplates(r.templates ?? []);
    } catch (err) {
      setError(err);
    }
  }, []);
  useEffect(() => void load(), [load]);

  return (
    <section aria-labelledby="connectors-title">
      <h1 id="connectors-title">Connectors</h1>
      <ErrorBanner error={error} />
      <h2>Yours</h2>
      {connectors === null ? (
        <Loading what="connectors" />
      ) : connectors.length === 0 ? (
        <p>No connectors yet: create one from a template below.</p>
      ) : (
        <ul className="cards">
          {connectors.map((c) => (
            <li key={c.id} className="card">
              <h3>{c.name}</h3>
              <p className="hint">
                <code>{c.id}</code> · {c.type}
              </p>
              <p>{c.description}</p>
              <div className="actions">
                <button onClick={() => setTesting(c)} aria-label={`Test ${c.name}`}>
                  Test
                </button>
                <button onClick={() => setEditing(c)} aria-label={`Edit YAML of ${c.name}`}>
                  Edit YAML
                </button>
                <button onClick={() => setBinding(c)} aria-label={`Bindings of ${c.name}`}>
                  Bindings
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {testing ? <TestPanel connector={testing} onClose={() => setTesting(null)} /> : null}
      {editing ? (
        <Suspense fallback={<Loading what="editor" />}>
          <ConnectorEditor key={editing.id} connector={editing} onSaved={() => void load()} onClose={() => setEditing(null)} />
        </Suspense>
      ) : null}
      {binding ? <ConnectorBindings key={binding.id} connector={binding} /> : null}
      <h2>Templates</h2>
      <ul className="cards">
        {templates.map((t) => (
          <li key={t.id} className="card">
            <h3>{t.name}</h3>
            <p className="hint">
              {t.category} · {t.type}
            </p>
            <p>{t.description}</p>
            <button onClick={() => setChosen(t)} aria-label={`Use template ${t.name}`}>
              Use template
            </button>
          </li>
        ))}
      </ul>
      {chosen ? (
        <FromTemplate
          template={chosen}
          onCreated={() => {
            setChosen(null);
            void load();
          }}
          onCancel={() => setChosen(null)}
        />
      ) : null}
    </section>
  );
}

function FromTemplate({ template, onCreated, onCancel }: { template: Template; onCreated(): void; onCancel(): void }) {
  const [connectorId, setConnectorId] = useState(template.id);
  const [creds, setCreds] = useState<Record<string, string>>({});
  const [overwrite, setOverwrite] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const fieldErr = (f: string) => (error instanceof ApiError ? error.forField(f) : undefined);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/api/agent-factory/connectors/from-template/${encodeURIComponent(template.id)}`, {
        body: { credentials: creds, connector_id: connectorId, ...(overwrite ? { overwrite: true } : {}) },
      });
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-label={`Create a connector from ${template.name}`} noValidate>
      <h2>Create from “{template.name}”</h2>
      <ErrorBanner error={error} fields={['connector_id', ...template.auth_fields.map((f) => `credentials.${f}`)]} />
      <TextField label="Connector id" value={connectorId} onChange={(e) => setConnectorId(e.target.value)} error={fieldErr('connector_id')} />
      {template.auth_fields.map((f) => (
        <TextField
          key={f}
          label={`Credential: ${f}`}
          type="password"
          autoComplete="off"
          value={creds[f] ?? ''}
          onChange={(e) => setCreds((old) => ({ ...old, [f]: e.target.value }))}
          error={fieldErr(`credentials.${f}`)}
        />
      ))}
      <div className="field">
        <label>
          <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} /> Replace a connector of mine with this id
        </label>
      </div>
      <div className="actions">
        <button type="submit" disabled={busy}>
          Create connector
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function TestPanel({ connector, onClose }: { connector: Connector; onClose(): void }) {
  const endpoints = Object.keys(connector.definition?.endpoints ?? {});
  const [endpoint, setEndpoint] = useState(endpoints[0] ?? '');
  const [inputs, setInputs] = useState('{}');
  const [result, setResult] = useState<{ result: unknown; inferred_output_schema: unknown; duration_ms: number; warnings: string[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [inputsError, setInputsError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const fieldErr = (f: string) => (error instanceof ApiError ? error.violations.filter((v) => v.field === f || v.field.startsWith(`${f}.`)).map((v) => `${v.field}: ${v.reason}`).join('; ') || undefined : undefined);
  const run = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setResult(null);
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(inputs || '{}');
      setInputsError(undefined);
    } catch {
      setInputsError('is not valid JSON');
      return;
    }
    setBusy(true);
    try {
      setResult(await api('POST', `/api/agent-factory/connectors/${encodeURIComponent(connector.id)}/test`, { body: { endpoint, inputs: parsed } }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="panel" onSubmit={run} aria-label={`Test ${connector.name}`} noValidate>
      <h2>Test “{connector.name}”</h2>
      <div className="field">
        <label htmlFor="test-endpoint">Endpoint</label>
        <select id="test-endpoint" value={endpoint} onChange={(e) => setEndpoint(e.target.value)}>
          {endpoints.map((ep) => (
            <option key={ep}>{ep}</option>
          ))}
        </select>
        {fieldErr('endpoint') ? <p className="field-error" role="alert">{fieldErr('endpoint')}</p> : null}
      </div>
      <TextArea label="Inputs (JSON)" rows={4} value={inputs} onChange={(e) => setInputs(e.target.value)} error={inputsError ?? fieldErr('inputs')} />
      <ErrorBanner error={error} fields={['endpoint', 'inputs']} />
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Calling…' : 'Call endpoint'}
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {result ? (
        <div role="status">
          <p>
            Answered in {result.duration_ms} ms{result.warnings.length ? ` · ${result.warnings.join('; ')}` : ''}
          </p>
          <h3>Result</h3>
          <pre tabIndex={0}>{JSON.stringify(result.result, null, 2)}</pre>
          <h3>Inferred output schema</h3>
          <pre tabIndex={0}>{JSON.stringify(result.inferred_output_schema, null, 2)}</pre>
        </div>
      ) : null}
    </form>
  );
}
