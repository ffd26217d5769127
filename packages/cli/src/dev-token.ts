/**
 * The plugin registration token of a local `pnpm start`: it keeps one in
 * `<data dir>/plugin-registration-token` (AF_DATA_DIR, else `.af-data` in the
 * checkout), so `af plugin dev` run anywhere inside the checkout registers
 * without copying it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const DEV_TOKEN_FILE = 'plugin-registration-token';

/** The token in AF_DATA_DIR, or in the nearest `.af-data` at or above `cwd`; undefined when there is none. */
export function devRegistrationToken(cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  const dirs = env.AF_DATA_DIR ? [resolve(cwd, env.AF_DATA_DIR)] : ancestors(resolve(cwd)).map((d) => join(d, '.af-data'));
  for (const dir of dirs) {
    const file = join(dir, DEV_TOKEN_FILE);
    if (existsSync(file)) return readFileSync(file, 'utf8').trim() || undefined;
  }
  return undefined;
}

function ancestors(dir: string): string[] {
  const out = [dir];
  for (let d = dir; dirname(d) !== d; d = dirname(d)) out.push(dirname(d));
  return out;
}
