/** Form pieces that put the API's errors next to the field they name. */
import { useId, type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes } from 'react';
import type { ApiError } from '../api/client';

export function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p className="field-error" id={id} role="alert">
      {message}
    </p>
  );
}

interface TextFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  error?: string;
  hint?: ReactNode;
}

export function TextField({ label, error, hint, ...input }: TextFieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-err` : undefined} {...input} />
      {hint ? <p className="hint">{hint}</p> : null}
      <FieldError id={`${id}-err`} message={error} />
    </div>
  );
}

interface TextAreaProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
  label: string;
  error?: string;
}

export function TextArea({ label, error, ...area }: TextAreaProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-err` : undefined} {...area} />
      <FieldError id={`${id}-err`} message={error} />
    </div>
  );
}

/** An error no field claims (or a network failure), as an alert above the form. */
export function ErrorBanner({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  const e = error as ApiError;
  const unclaimed = (e.violations ?? []).filter((v) => !fields.includes(v.field));
  if (e.violations?.length && unclaimed.length === 0) return null;
  return (
    <div className="banner error" role="alert">
      <strong>{e.message ?? String(error)}</strong>
      {unclaimed.length > 1 ? (
        <ul>
          {unclaimed.map((v, i) => (
            <li key={i}>
              {v.field}: {v.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}
