/** A playbook's `inputs` list (name, type, default, enum, required) as the JSON Schema the run form is made from. */
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
