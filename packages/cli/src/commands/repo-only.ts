/**
 * `af er` runs the entity-resolution service's own pipeline, which lives in
 * this repository, not in the published CLI (it would pull in the whole
 * service). Installed from its tarball, the CLI says so instead of failing
 * with a module error.
 */
import { CliError } from '../io.js';

export async function repoOnly<T>(load: () => Promise<T>, pkg: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes(pkg)) {
      throw new CliError(
        `af er needs ${pkg}, which only the Agent Factory repository has: run it there as \`pnpm af er …\` (the installed CLI carries the connector and plugin commands)`,
      );
    }
    throw err;
  }
}
