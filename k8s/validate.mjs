#!/usr/bin/env node
// Offline validation of the Kubernetes manifests. Plain Node ESM, no build step.
//
//   node k8s/validate.mjs                 every overlay under k8s/overlays/
//   node k8s/validate.mjs <dir>...        the given kustomization directories
//   node k8s/validate.mjs --self-test     prove the checks reject known-bad input
//   --renderer=auto|kubectl|builtin       default auto: kubectl when installed,
//                                         else the built-in kustomize subset
//
// Exit status: 0 no problems, 1 problems found (or a self-test failed),
// 2 could not run (bad arguments, kubectl asked for but missing, dependencies
// not installed, a kustomization that cannot be rendered).

import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const USAGE =
  'usage: node k8s/validate.mjs [--renderer=auto|kubectl|builtin] [--self-test] [kustomization-dir...]';

async function main(argv) {
  const args = parseArgs(argv);
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  if (args.error) return fail(`${args.error}\n${USAGE}`);
  let lib;
  try {
    lib = await loadLib();
  } catch (e) {
    return fail(e.message);
  }
  const kubectl = args.renderer === 'builtin' ? undefined : lib.kubectlVersion();
  if (args.renderer === 'kubectl' && !kubectl)
    return fail('--renderer=kubectl: kubectl is not installed or not on PATH');
  if (!kubectl && args.renderer === 'auto') {
    console.log(
      'note: kubectl not found; rendering with the built-in kustomize subset ' +
        `(${lib.SUPPORTED_FIELDS.join(', ')}). Kustomizations using anything else fail with the field named; ` +
        'install kubectl to render those.',
    );
  }
  if (args.selfTest) return (await lib.runSelfTest({ kubectl })) ? 0 : 1;
  const dirs = args.dirs.length > 0 ? args.dirs : overlayDirs();
  let problems = 0;
  for (const dir of dirs) {
    const name = relative(process.cwd(), dir) || dir;
    let rendered;
    try {
      rendered = lib.render(dir, { mode: args.renderer, kubectl });
    } catch (e) {
      if (e instanceof lib.RenderError || e instanceof lib.MissingModelsError)
        return fail(`${name}: ${e.message}`);
      throw e;
    }
    const found = [
      ...rendered.problems.map((message) => ({ where: 'renderer', message })),
      ...(await lib.validateObjects(rendered.objects)),
    ];
    problems += found.length;
    const head = `${found.length === 0 ? 'ok  ' : 'FAIL'} ${name}: ${rendered.objects.length} objects, rendered with ${rendered.renderer}`;
    console.log(found.length === 0 ? head : `${head}, ${found.length} problem(s)`);
    for (const note of rendered.notes) console.log(`     note: ${note}`);
    for (const p of found) console.log(`     ${p.where}: ${p.message}`);
  }
  return problems === 0 ? 0 : 1;
}

// Imported lazily so a missing `yaml`/`ajv` install gives one clear line, not a stack trace.
async function loadLib() {
  try {
    const [render, lite, validate, models, selfTest] = await Promise.all([
      import('./lib/render.mjs'),
      import('./lib/kustomize-lite.mjs'),
      import('./lib/validate-objects.mjs'),
      import('./lib/model-check.mjs'),
      import('./lib/self-test.mjs'),
    ]);
    return { ...render, ...lite, ...validate, ...models, ...selfTest };
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && /Cannot find package/.test(e.message)) {
      throw new Error(`${e.message.split('\n')[0]}: run \`pnpm install\` at the repository root first`);
    }
    throw e;
  }
}

function parseArgs(argv) {
  const out = { renderer: 'auto', selfTest: false, dirs: [] };
  for (const arg of argv) {
    if (arg === '--self-test') out.selfTest = true;
    else if (arg.startsWith('--renderer=')) out.renderer = arg.slice('--renderer='.length);
    else if (arg === '--help' || arg === '-h') return { help: true };
    else if (arg.startsWith('-')) return { error: `unknown option ${arg}` };
    else out.dirs.push(arg);
  }
  if (!['auto', 'kubectl', 'builtin'].includes(out.renderer))
    return { error: `--renderer must be auto, kubectl or builtin` };
  return out;
}

function overlayDirs() {
  const root = join(here, 'overlays');
  return readdirSync(root)
    .map((d) => join(root, d))
    .filter((d) => statSync(d).isDirectory())
    .sort();
}

function fail(message) {
  console.error(`k8s/validate: ${message}`);
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
