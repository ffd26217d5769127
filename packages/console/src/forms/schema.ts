/**
 * JSON Schema (an object schema, as a human task's output schema is) → the
 * fields of a form, and the form's values → the JSON object to submit.
 * Values are converted, not judged: a value the schema refuses is sent as
 * typed, so the API's own validation names the field and the reason.
 */

export type FieldKind = 'text' | 'textarea' | 'number' | 'integer' | 'boolean' | 'select' | 'list' | 'json';

export interface FormField {
  name: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  options?: string[];
  min?: number;
  max?: number;
}

type Schema = Record<string, any>;

const titleCase = (s: string) => s.replace(/[_-]+/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

function fieldKind(prop: Schema): Pick<FormField, 'kind' | 'options'> {
  if (Array.isArray(prop.enum) && prop.enum.every((v: unknown) => typeof v === 'string')) return { kind: 'select', options: prop.enum };
  const type = Array.isArray(prop.type) ? prop.type.find((t: string) => t !== 'null') : prop.type;
  switch (type) {
    case 'string':
      return { kind: (prop.maxLength ?? 0) > 200 || prop.format === 'textarea' ? 'textarea' : 'text' };
    case 'number':
      return { kind: 'number' };
    case 'integer':
      return { kind: 'integer' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'array':
      return prop.items?.type === 'string' ? { kind: 'list' } : { kind: 'json' };
    default:
      return { kind: 'json' };
  }
}

/** The form fields of an object schema, in property order. A schema that is not an object becomes one JSON field named `value`. */
export function fieldsOf(schema: Schema | null | undefined): FormField[] {
  if (!schema || schema.type !== 'object' || typeof schema.properties !== 'object') {
    return [{ name: 'value', label: 'Value (JSON)', kind: 'json', required: true }];
  }
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties as Record<string, Schema>).map(([name, prop]) => ({
    name,
    label: prop.title ?? titleCase(name),
    required: required.has(name),
    ...(prop.description ? { description: prop.description } : {}),
    ...(typeof prop.minimum === 'number' ? { min: prop.minimum } : {}),
    ...(typeof prop.maximum === 'number' ? { max: prop.maximum } : {}),
    ...fieldKind(prop),
  }));
}

export type FormValues = Record<string, string | boolean>;

/** Starting values: schema defaults, false for booleans, empty text otherwise. */
export function initialValues(schema: Schema | null | undefined): FormValues {
  const out: FormValues = {};
  for (const f of fieldsOf(schema)) {
    const def = schema?.properties?.[f.name]?.default;
    if (f.kind === 'boolean') out[f.name] = def === true;
    else if (def !== undefined) out[f.name] = f.kind === 'json' ? JSON.stringify(def) : f.kind === 'list' && Array.isArray(def) ? def.join('\n') : String(def);
    else out[f.name] = '';
  }
  return out;
}

export interface BuildResult {
  value: unknown;
  /** Problems the form itself found (JSON that does not parse), by field name. */
  errors: Record<string, string>;
}

/** The JSON to submit: empty optional fields left out, numbers parsed (kept as text when not numeric), lists split by line. */
export function buildValue(schema: Schema | null | undefined, values: FormValues): BuildResult {
  const fields = fieldsOf(schema);
  const errors: Record<string, string> = {};
  const parseJson = (name: string, raw: string) => {
    try {
      return JSON.parse(raw);
    } catch {
      errors[name] = 'is not valid JSON';
      return undefined;
    }
  };
  if (fields.length === 1 && fields[0]!.name === 'value' && (!schema || schema.type !== 'object')) {
    const raw = String(values.value ?? '');
    return { value: raw.trim() === '' ? null : parseJson('value', raw), errors };
  }
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.kind === 'boolean') {
      out[f.name] = v === true;
      continue;
    }
    const raw = typeof v === 'string' ? v : '';
    if (raw.trim() === '') continue;
    if (f.kind === 'number' || f.kind === 'integer') {
      const n = Number(raw);
      out[f.name] = raw.trim() !== '' && Number.isFinite(n) ? n : raw;
    } else if (f.kind === 'list') {
      out[f.name] = raw.split('\n').map((s) => s.trim()).filter(Boolean);
    } else if (f.kind === 'json') {
      const parsed = parseJson(f.name, raw);
      if (parsed !== undefined) out[f.name] = parsed;
    } else {
      out[f.name] = raw;
    }
  }
  return { value: out, errors };
}

/**
 * The API's violations (`output.go`, `output/go`, `output` with "must have
 * required property 'go'") → messages by form field name; what names no
 * field goes under `''`.
 */
export function errorsByField(violations: Array<{ field: string; reason: string }>, prefix = 'output'): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (k: string, reason: string) => {
    out[k] = out[k] ? `${out[k]}; ${reason}` : reason;
  };
  for (const v of violations) {
    const path = v.field.replace(/^\//, '').replace(/\//g, '.');
    const rest = path === prefix ? '' : path.startsWith(`${prefix}.`) ? path.slice(prefix.length + 1) : path.startsWith(`${prefix}[`) ? path.slice(prefix.length) : null;
    if (rest === null) {
      add('', `${v.field}: ${v.reason}`);
      continue;
    }
    const name = rest.split(/[.[]/)[0] ?? '';
    const missing = /required property '([^']+)'/.exec(v.reason);
    if (name === '' && missing) add(missing[1]!, 'is required');
    else add(name, v.reason);
  }
  return out;
}
