/**
 * System connector templates (seed §7): YAML files shipped in
 * `services/connector-runtime/templates/`, parsed once at start-up. A template
 * that does not parse stops the service with its file and field path — a
 * broken template is a release bug, not something to discover at call time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConnectorYaml, type ConnectorDefinition } from '@af/connectors';

export interface ConnectorTemplate {
  id: string;
  yaml: string;
  definition: ConnectorDefinition;
}

/** `templates/` beside `dist/` (and beside `src/` in tests). */
export const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

export function loadTemplates(dir: string = TEMPLATES_DIR): ConnectorTemplate[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const templates: ConnectorTemplate[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const yaml = readFileSync(join(dir, file), 'utf8');
    const parsed = parseConnectorYaml(yaml);
    if (!parsed.ok) {
      const first = parsed.errors.slice(0, 5).map((e) => `${e.field}${e.line ? ` (line ${e.line})` : ''}: ${e.reason}`);
      throw new Error(`connector template ${file} is invalid: ${first.join('; ')}`);
    }
    if (seen.has(parsed.definition.id)) throw new Error(`connector template ${file}: duplicate id ${parsed.definition.id}`);
    seen.add(parsed.definition.id);
    templates.push({ id: parsed.definition.id, yaml, definition: parsed.definition });
  }
  return templates;
}
