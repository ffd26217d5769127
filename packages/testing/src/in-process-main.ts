/**
 * Every service of a test stack in one process, started as `pnpm start`
 * starts them (their `bootstrap*` functions, the gateway last), so that they
 * share the in-process event bus. Spawned by startStack({ bus: 'memory' })
 * with each service's environment in AF_IN_PROCESS_ENVS; SIGTERM closes them
 * in reverse order.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IN_PROCESS_READY } from './in-process-ready.js';
import { REPO_ROOT } from './service-process.js';

interface Running {
  close(): Promise<unknown>;
}

const envs = JSON.parse(process.env.AF_IN_PROCESS_ENVS ?? '{}') as Record<string, Record<string, string>>;
const order = (process.env.AF_IN_PROCESS_ORDER ?? '').split(',').filter(Boolean);
const running: Running[] = [];

async function stop(code: number): Promise<never> {
  for (const service of running.reverse()) await service.close().catch((err: Error) => console.error(`close failed: ${err.message}`));
  process.exit(code);
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void stop(0));

try {
  for (const name of order) {
    const mod = (await import(pathToFileURL(join(REPO_ROOT, 'services', name, 'dist', 'index.js')).href)) as Record<string, unknown>;
    const start = Object.values(mod).find((v): v is (env: Record<string, string>) => Promise<Running> => typeof v === 'function' && v.name.startsWith('bootstrap'));
    if (!start) throw new Error(`services/${name}/dist/index.js exports no bootstrap function`);
    running.push(await start({ PATH: process.env.PATH ?? '', ...envs[name] }));
  }
  console.log(IN_PROCESS_READY);
} catch (err) {
  console.error(`in-process stack failed to start: ${(err as Error).stack ?? String(err)}`);
  await stop(1);
}
