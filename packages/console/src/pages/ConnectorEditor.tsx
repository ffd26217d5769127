/**
 * Edit a connector as YAML: its stored definition shown as YAML, validated
 * half a second after each edit (each problem with its field and line), saved
 * with credentials to add or replace. Loaded with the editor only (the YAML
 * library stays out of the first page).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { stringify } from 'yaml';
import { api, ApiError } from '../api/client';
import { ErrorBanner, TextArea, TextField } from '../components/ui';

interface Issue {
  field: string;
  reason: string;
  line?: number;
}

interface Validation {
  valid: boolean;
  errors: Issue[];
  warnings: Issue[];
}

export default function ConnectorEditor({ connector, onSaved, onClose }: { connector: { id: string; name: string; definition: Record<string, unknown>; credential_names: string[] }; onSaved(): void; onClose(): void }) {
  const [yaml, setYaml] = useState(() => stringify(connector.definition));
  const [validation, setValidation] = useState<Validation | null>(null);
  const [credName, setCredName] = useState('');
  const [credValue, setCredValue] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const path = `/api/agent-factory/connectors/${encodeURIComponent(connector.id)}`;

  useEffect(() => {
    const ctl = new AbortController();
    const t = setTimeout(() => {
      api<Validation>('POST', `${path}/validate`, { body: { yaml }, signal: ctl.signal }).then(
        (v) => setValidation(v),
        (err) => {
          if ((err as Error).name === 'AbortError') return;
          // A body the route refuses (empty YAML) names its field like a validation error.
          if (err instanceof ApiError) setValidation({ valid: false, errors: err.violations.length ? err.violations : [{ field: 'yaml', reason: err.message }], warnings: [] });
        },
      );
    }, 500);
    return () => {
      clearTimeout(t);
      ctl.abort();
    };
  }, [yaml, path]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await api('PUT', path, { body: { yaml, ...(credName ? { credentials: { [credName]: credValue } } : {}) } });
      setSaved(true);
      setCredName('');
      setCredValue('');
      onSaved();
    } catch (err) {
      setError(err);
      if (err instanceof ApiError && err.violations.length) setValidation({ valid: false, errors: err.violations, warnings: [] });
    }
  };
  const problems = validation?.errors ?? [];
  return (
    <form className="panel" onSubmit={save} noValidate aria-label={`Edit ${connector.name}`}>
      <h2>Edit {connector.name}</h2>
      <ErrorBanner error={error instanceof ApiError && error.violations.length ? null : error} />
      <TextArea label="Connector YAML" className="code" rows={18} value={yaml} onChange={(e) => setYaml(e.target.value)} spellCheck={false} error={problems.length ? `${problems.length} problem(s), listed below` : undefined} />
      <div id="connector-validation" aria-live="polite" data-valid={validation ? String(validation.valid) : undefined}>
        {validation === null ? (
          <p className="hint">Checking…</p>
        ) : validation.valid ? (
          <p className="hint">Valid.</p>
        ) : (
          <ul className="problems">
            {problems.map((p, i) => (
              <li key={i} className="field-error">
                {p.line ? <span className="line">line {p.line}: </span> : null}
                <code>{p.field}</code> {p.reason}
              </li>
            ))}
          </ul>
        )}
        {validation?.warnings.length ? (
          <ul className="warnings">
            {validation.warnings.map((w, i) => (
              <li key={i}>
                <code>{w.field}</code> {w.reason}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <p className="hint">Stored credentials: {connector.credential_names.join(', ') || 'none'} (values are never shown). Add or replace one:</p>
      <div className="filters">
        <TextField label="Credential name" value={credName} onChange={(e) => setCredName(e.target.value)} />
        <TextField label="Credential value" type="password" autoComplete="off" value={credValue} onChange={(e) => setCredValue(e.target.value)} />
      </div>
      <div className="actions">
        <button type="submit" disabled={validation?.valid === false}>
          Save connector
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {saved ? <p role="status">Saved.</p> : null}
    </form>
  );
}
