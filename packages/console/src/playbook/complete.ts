/**
 * Completion for the playbook YAML editor from the playbook format's JSON
 * Schema: at the caret, the keys the object there may have (those not
 * written yet), or the values a key takes (its enum, or the action names
 * for `action`). Pure: text and caret in, suggestions out.
 */

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  description?: string;
};

export interface Completion {
  /** Where the replaced text starts and ends (the prefix typed so far). */
  from: number;
  to: number;
  kind: 'key' | 'value';
  options: Array<{ label: string; insert: string; detail?: string }>;
}

interface Line {
  indent: number;
  dash: boolean;
  keyCol: number;
  key?: string;
  /** The text after `key:` (trimmed). */
  value?: string;
}

function parseLine(text: string): Line {
  const indent = /^ */.exec(text)![0].length;
  const rest = text.slice(indent);
  const dash = rest.startsWith('- ') || rest === '-';
  const body = dash ? rest.slice(2) : rest;
  const keyCol = indent + (dash ? 2 : 0);
  const m = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:(.*)$/.exec(body);
  return m ? { indent, dash, keyCol, key: m[1], value: m[2]!.trim() } : { indent, dash, keyCol };
}

/** The keys (and `*` for a list item) from the top down to the object the caret's line is in. */
export function pathAt(lines: string[], lineIndex: number): string[] {
  const current = parseLine(lines[lineIndex] ?? '');
  const path: string[] = [];
  let limit = current.keyCol;
  if (current.dash) {
    path.unshift('*');
    limit = current.indent + 1;
  }
  for (let i = lineIndex - 1; i >= 0 && limit > 0; i--) {
    const raw = lines[i]!;
    if (!raw.trim() || raw.trim().startsWith('#')) continue;
    const l = parseLine(raw);
    if (l.dash && l.indent + 2 === limit && path[0] !== '*') {
      // The list item the caret's object belongs to (its first line).
      path.unshift('*');
      limit = l.indent + 1;
      if (l.key !== undefined && l.keyCol < current.keyCol && !l.value) {
        /* the item's first key opens a nested block: handled by the loop below */
      }
      continue;
    }
    if (l.keyCol < limit && l.key !== undefined) {
      if (l.value) return path; // a scalar at a lower level: the caret's block ended; top level.
      path.unshift(l.key);
      limit = l.keyCol;
      if (l.dash) {
        path.unshift('*');
        limit = l.indent + 1;
      }
    }
  }
  return path;
}

function options(schema: JsonSchema | undefined): JsonSchema[] {
  if (!schema) return [];
  const alts = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  return alts.length ? [schema, ...alts.flatMap(options)] : [schema];
}

/** The sub-schema at `path` (object properties merged across anyOf / oneOf). */
export function schemaAt(root: JsonSchema, path: string[]): JsonSchema | undefined {
  let here: JsonSchema[] = [root];
  for (const part of path) {
    const next: JsonSchema[] = [];
    for (const s of here.flatMap(options)) {
      if (part === '*' && s.items) next.push(s.items);
      else if (part !== '*' && s.properties?.[part]) next.push(s.properties[part]!);
    }
    if (!next.length) return undefined;
    here = next;
  }
  const all = here.flatMap(options);
  const properties: Record<string, JsonSchema> = {};
  for (const s of all) Object.assign(properties, s.properties ?? {});
  const enums = all.flatMap((s) => s.enum ?? []);
  return { properties, ...(enums.length ? { enum: enums } : {}), ...(all.find((s) => s.items) ? { items: all.find((s) => s.items)!.items } : {}) };
}

/** Keys already written in the block (same key column) around `lineIndex`. */
function siblingKeys(lines: string[], lineIndex: number, keyCol: number): Set<string> {
  const keys = new Set<string>();
  const own = parseLine(lines[lineIndex] ?? '');
  const inItem = own.dash;
  for (const dir of [-1, 1]) {
    for (let i = lineIndex + dir; i >= 0 && i < lines.length; i += dir) {
      const raw = lines[i]!;
      if (!raw.trim()) continue;
      const l = parseLine(raw);
      if (l.keyCol < keyCol) {
        if (l.dash && l.keyCol === keyCol - 0 && l.key) keys.add(l.key);
        break;
      }
      if (l.keyCol === keyCol && l.key) {
        // A new list item at this column starts another object.
        if (l.dash && (dir === 1 || inItem)) break;
        keys.add(l.key);
        if (l.dash) break;
      }
    }
  }
  return keys;
}

export function completeAt(text: string, caret: number, schema: JsonSchema, actions: string[] = []): Completion | null {
  const lineStart = text.lastIndexOf('\n', caret - 1) + 1;
  const lineEndRaw = text.indexOf('\n', caret);
  const lineEnd = lineEndRaw < 0 ? text.length : lineEndRaw;
  const before = text.slice(lineStart, caret);
  const lines = text.split('\n');
  const lineIndex = text.slice(0, lineStart).split('\n').length - 1;
  lines[lineIndex] = before + text.slice(caret, lineEnd);

  const valueMatch = /^(\s*(?:- )?)([A-Za-z_][A-Za-z0-9_-]*):\s+(["']?)([^"'#]*)$/.exec(before);
  if (valueMatch) {
    const key = valueMatch[2]!;
    const prefix = valueMatch[4]!;
    const parent = schemaAt(schema, pathAt(lines, lineIndex));
    const prop = parent?.properties?.[key];
    const values = key === 'action' && actions.length ? actions : (schemaAt(prop ?? {}, [])?.enum ?? []).map(String);
    const matching = [...new Set(values)].filter((v) => v.startsWith(prefix) && v !== prefix);
    if (!matching.length) return null;
    return { from: caret - prefix.length, to: caret, kind: 'value', options: matching.slice(0, 50).map((v) => ({ label: v, insert: v })) };
  }
  const keyMatch = /^(\s*(?:- )?)([A-Za-z_][A-Za-z0-9_-]*)?$/.exec(before);
  if (!keyMatch) return null;
  const prefix = keyMatch[2] ?? '';
  const here = parseLine(lines[lineIndex]!);
  const target = schemaAt(schema, pathAt(lines, lineIndex));
  const props = target?.properties ?? {};
  const written = siblingKeys(lines, lineIndex, here.keyCol);
  const keys = Object.keys(props).filter((k) => k.startsWith(prefix) && !written.has(k) && k !== prefix);
  if (!keys.length) return null;
  return {
    from: caret - prefix.length,
    to: caret,
    kind: 'key',
    options: keys.map((k) => {
      const p = schemaAt(props[k]!, []);
      const isBlock = (props[k]!.type === 'object' || props[k]!.type === 'array' || Object.keys(p?.properties ?? {}).length > 0) && !p?.enum;
      return { label: k, insert: isBlock ? `${k}:` : `${k}: `, ...(props[k]!.description ? { detail: props[k]!.description } : {}) };
    }),
  };
}
