/** A form generated from a JSON Schema; `errors` (by field name) come from the API and sit under their field. */
import { useId, useState, type FormEvent } from 'react';
import { FieldError } from '../components/ui';
import { buildValue, fieldsOf, initialValues, type FormField, type FormValues } from './schema';

export interface SchemaFormProps {
  schema: Record<string, any> | null | undefined;
  /** Messages by field name ('' = the form as a whole). */
  errors?: Record<string, string>;
  submitLabel?: string;
  busy?: boolean;
  onSubmit(value: unknown): void;
}

export function SchemaForm({ schema, errors = {}, submitLabel = 'Submit', busy, onSubmit }: SchemaFormProps) {
  const [values, setValues] = useState<FormValues>(() => initialValues(schema));
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const fields = fieldsOf(schema);
  const set = (name: string, v: string | boolean) => setValues((old) => ({ ...old, [name]: v }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const built = buildValue(schema, values);
    setLocalErrors(built.errors);
    if (Object.keys(built.errors).length === 0) onSubmit(built.value);
  };
  return (
    <form onSubmit={submit} noValidate className="schema-form">
      {fields.map((f) => (
        <SchemaField key={f.name} field={f} value={values[f.name]} error={localErrors[f.name] ?? errors[f.name]} onChange={(v) => set(f.name, v)} />
      ))}
      {errors[''] ? (
        <p className="field-error" role="alert">
          {errors['']}
        </p>
      ) : null}
      <button type="submit" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}

function SchemaField({ field, value, error, onChange }: { field: FormField; value: string | boolean | undefined; error?: string; onChange(v: string | boolean): void }) {
  const id = useId();
  const errId = `${id}-err`;
  const descId = `${id}-desc`;
  const describedBy = [field.description ? descId : '', error ? errId : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, name: field.name, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy, required: field.required };
  const text = typeof value === 'string' ? value : '';
  let control;
  switch (field.kind) {
    case 'boolean':
      control = <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
      break;
    case 'select':
      control = (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">—</option>
          {field.options!.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    case 'number':
    case 'integer':
      // Text with a numeric keyboard: what was typed reaches the API as typed, and its error names the field.
      control = <input type="text" inputMode={field.kind === 'integer' ? 'numeric' : 'decimal'} {...common} value={text} onChange={(e) => onChange(e.target.value)} />;
      break;
    case 'textarea':
    case 'list':
    case 'json':
      control = <textarea {...common} rows={field.kind === 'json' ? 4 : 3} value={text} onChange={(e) => onChange(e.target.value)} />;
      break;
    default:
      control = <input type="text" {...common} value={text} onChange={(e) => onChange(e.target.value)} />;
  }
  const hint = field.kind === 'list' ? 'one per line' : field.kind === 'json' ? 'JSON' : field.min !== undefined || field.max !== undefined ? `${field.min ?? '…'} to ${field.max ?? '…'}` : '';
  return (
    <div className={`field field-${field.kind}`}>
      <label htmlFor={id}>
        {field.label}
        {field.required ? <span aria-hidden="true"> *</span> : null}
        {hint ? <span className="hint-inline"> ({hint})</span> : null}
      </label>
      {control}
      {field.description ? (
        <p className="hint" id={descId}>
          {field.description}
        </p>
      ) : null}
      <FieldError id={errId} message={error} />
    </div>
  );
}
