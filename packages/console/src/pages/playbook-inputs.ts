/** Reading a playbook's YAML for the editor: its `inputs` as a JSON Schema (the run form), its step names. */
import { parse } from 'yaml';

// Playbook input types: string, number, date, entity_name, list (a list is entered as JSON).
const TYPES: Record<string, string> = { string: 'string', number: 'number', date: 'string', entity_name: 'string', list: 'array' };

export function inputsSchema(yamlText: string): Record<string, any> {
  let doc: any;
  try {
    doc = parse(yamlText);
  } catch {
    doc = null;
  }
  const properties: Record<string, any> = {};
  const required: string[] = [];
  for (const input of Array.isArray(doc?.inputs) ? doc.inputs : []) {
    if (!input || typeof input.name !== 'string') continue;
    const prop: Record<string, any> = { type: TYPES[String(input.type)] ?? 'string' };
    if (input.default !== undefined) prop.default = input.default;
    if (Array.isArray(input.enum)) prop.enum = input.enum;
    if (typeof input.description === 'string') prop.description = input.description;
    properties[input.name] = prop;
    if (input.required === true && input.default === undefined) required.push(input.name);
  }
  return { type: 'object', properties, required };
}

/** Step names in document order, read leniently so a broken document still shows its steps. */
export function stepNames(yamlText: string): string[] {
  const names: string[] = [];
  let inSteps = false;
  for (const line of yamlText.split('\n')) {
    if (/^steps:\s*$/.test(line)) {
      inSteps = true;
      continue;
    }
    if (inSteps && /^\S/.test(line)) inSteps = false;
    const m = inSteps ? /^\s*-\s*name:\s*["']?([^"'#]+?)["']?\s*(#.*)?$/.exec(line) : null;
    if (m) names.push(m[1]!);
  }
  return names;
}
