/**
 * Where a worker thread's module is: the compiled `file` beside the module
 * at `moduleUrl` (the build, `dist/`), or, when that module runs from the
 * TypeScript sources (the test runner), the build's copy of it under `dist/`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export function compiledWorkerUrl(moduleUrl: string, file: string): URL {
  const beside = new URL(file, moduleUrl);
  const path = fileURLToPath(beside);
  if (existsSync(path)) return beside;
  const at = path.lastIndexOf('/src/');
  const built = at >= 0 ? `${path.slice(0, at)}/dist/${path.slice(at + '/src/'.length)}` : path;
  if (existsSync(built)) return pathToFileURL(built);
  throw new Error(`no compiled ${file} beside ${fileURLToPath(moduleUrl)} (build the package first: pnpm --filter @af/entity-resolution build)`);
}
