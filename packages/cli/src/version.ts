/** The CLI's version: the `version` of its package.json (one level above `src/` and `dist/`). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function readCliVersion(moduleDir: string): string {
  const file = join(moduleDir, '..', 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
  if (pkg.name !== '@af/cli' || typeof pkg.version !== 'string') {
    throw new Error(`${file} is not the @af/cli package.json (no version)`);
  }
  return pkg.version;
}
