// `node k8s/validate.mjs --self-test`: proves the validator rejects what it
// claims to reject. Each case breaks one thing in a known-good render (or
// renders a known-bad fixture) and asserts the expected problem is reported;
// the good renders themselves must come out clean.

import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyJsonPatch, JsonPatchError } from './json-patch.mjs';
import { renderKustomization, RenderError, splitImage } from './kustomize-lite.mjs';
import { compareRenders, renderWithKubectl } from './render.mjs';
import { OMITTED_KEYS, SHAPES } from './strict-schemas.mjs';
import { FIXTURE_CASES, MUTATION_CASES, POLICY_CASES } from './self-test-cases.mjs';
import { validateObjects } from './validate-objects.mjs';

const k8sDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const overlay = (name) => join(k8sDir, 'overlays', name);
const fixture = (name) => join(k8sDir, 'fixtures', name);

const lines = (problems) => problems.map((p) => `${p.where}: ${p.message}`);

/**
 * Runs every case and prints one line each.
 * @param {{kubectl?: string}} opts kubectl's version when it is installed
 * @returns {Promise<boolean>} true when all cases pass
 */
export async function runSelfTest({ kubectl }) {
  const results = [];
  const check = async (name, fn) => {
    try {
      const detail = await fn();
      results.push({ name, ok: !detail, detail });
    } catch (e) {
      results.push({ name, ok: false, detail: `threw: ${e.stack ?? e}` });
    }
  };
  const clean = { dev: renderKustomization(overlay('dev')), prod: renderKustomization(overlay('prod')) };
  for (const name of Object.keys(clean)) {
    await check(
      `overlays/${name} is clean`,
      async () => lines(await validateObjects(clean[name])).join('\n  ') || undefined,
    );
  }
  for (const [name, mutate, expected] of MUTATION_CASES) {
    await check(name, async () => {
      const objects = structuredClone(clean.dev);
      mutate(objects);
      return expectProblem(lines(await validateObjects(objects)), expected);
    });
  }
  for (const [name, fn] of POLICY_CASES) await check(name, async () => fn(structuredClone(clean.dev)));
  const renderFixture = (dir) => (kubectl ? renderWithKubectl(dir) : renderKustomization(dir));
  for (const [name, dir, expected] of FIXTURE_CASES) {
    await check(name, async () =>
      expectProblem(lines(await validateObjects(renderFixture(fixture(dir)))), expected),
    );
  }
  for (const [name, fn] of rendererCases()) await check(name, fn);
  await check('strict key lists match kubernetes-models', strictKeysMatchModels);
  if (kubectl) {
    for (const name of Object.keys(clean)) {
      await check(
        `built-in render of overlays/${name} equals kubectl's`,
        () => compareRenders(renderWithKubectl(overlay(name)), clean[name]).join('\n  ') || undefined,
      );
    }
  } else {
    results.push({ name: 'built-in render equals kubectl (skipped: no kubectl)', ok: true });
  }
  for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}${r.ok ? '' : `\n  ${r.detail}`}`);
  const failed = results.filter((r) => !r.ok).length;
  console.log(`self-test: ${results.length - failed}/${results.length} passed`);
  return failed === 0;
}

function expectProblem(problems, expected) {
  if (problems.some((p) => expected.test(p))) return undefined;
  return `expected a problem matching ${expected}, got:\n  ${problems.join('\n  ') || '(none)'}`;
}

function expectThrow(fn, type, expected) {
  try {
    fn();
  } catch (e) {
    if (e instanceof type && expected.test(e.message)) return undefined;
    return `threw ${e?.constructor?.name}: ${e?.message}, expected ${type.name} matching ${expected}`;
  }
  return `did not throw (expected ${expected})`;
}

function rendererCases() {
  const doc = { spec: { list: [1, 2], 'a/b': { c: 1 } } };
  return [
    [
      'built-in renderer refuses unsupported fields',
      () =>
        expectThrow(
          () => renderKustomization(fixture('unsupported-field')),
          RenderError,
          /field "configMapGenerator" is outside/,
        ),
    ],
    [
      'JSON patch replace of a missing path fails',
      () =>
        expectThrow(
          () => applyJsonPatch(doc, [{ op: 'replace', path: '/spec/nope', value: 1 }]),
          JsonPatchError,
          /target does not exist/,
        ),
    ],
    [
      'JSON patch add/remove/escaped paths',
      () => {
        const out = applyJsonPatch(doc, [
          { op: 'add', path: '/spec/list/-', value: 3 },
          { op: 'remove', path: '/spec/list/0' },
          { op: 'replace', path: '/spec/a~1b/c', value: 2 },
          { op: 'test', path: '/spec/list', value: [2, 3] },
        ]);
        const want = JSON.stringify({ spec: { list: [2, 3], 'a/b': { c: 2 } } });
        return JSON.stringify(out) === want && doc.spec.list.length === 2
          ? undefined
          : `got ${JSON.stringify(out)}`;
      },
    ],
    [
      'image references split at the right colon',
      () => {
        const got = ['host:5000/app', 'host:5000/app:1.2', 'app@sha256:ab', 'ghcr.io/o/app:dev'].map((r) => {
          const { name, tag, digest } = splitImage(r);
          return `${name}|${tag ?? ''}|${digest ?? ''}`;
        });
        const want = ['host:5000/app||', 'host:5000/app|1.2|', 'app||sha256:ab', 'ghcr.io/o/app|dev|'];
        return JSON.stringify(got) === JSON.stringify(want) ? undefined : `got ${JSON.stringify(got)}`;
      },
    ],
  ];
}

// Each strict shape must list exactly the keys kubernetes-models declares for
// that type (minus the deliberately omitted ones), so the allow-lists can
// neither hold a typo nor miss a real field.
function strictKeysMatchModels() {
  const modelsRoot = dirname(dirname(fileURLToPath(import.meta.resolve('kubernetes-models/v1/Container'))));
  const apimachinery = join(dirname(realpathSync(modelsRoot)), '@kubernetes-models', 'apimachinery', 'apis');
  const problems = [];
  for (const { model, keys } of SHAPES) {
    const file = model.startsWith('meta/')
      ? join(apimachinery, `${model}.d.ts`)
      : join(modelsRoot, `${model}.d.ts`);
    const declared = new Set(
      [...readFileSync(file, 'utf8').matchAll(/^ {4}"([^"]+)"\??:/gm)].map((m) => m[1]),
    );
    const extra = keys.filter((k) => !declared.has(k));
    const missing = [...declared].filter((k) => !keys.includes(k) && !OMITTED_KEYS.has(k));
    if (extra.length > 0) problems.push(`${model}: not in the model: ${extra.join(', ')}`);
    if (missing.length > 0) problems.push(`${model}: missing: ${missing.join(', ')}`);
  }
  return problems.join('\n  ') || undefined;
}
