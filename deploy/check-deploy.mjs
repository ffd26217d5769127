#!/usr/bin/env node
// Checks a `pnpm deploy` output folder before it becomes an image:
// the service's dist/main.js is there, and every workspace (@af/*) dependency
// was copied with its entry point and the files it declares. pnpm deploy
// decides what to copy by npm packing rules, so a package without a "files"
// field and with dist/ in a .gitignore would silently arrive without dist/.
//
//   node deploy/check-deploy.mjs /out
//
// Plain Node, no dependencies: it runs in the image build stage.

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Problems with the deployed folder `dir`, as readable strings.
 * @param {string} dir
 * @returns {string[]}
 */
export function deployProblems(dir) {
  const problems = [];
  const manifest = readJson(join(dir, 'package.json'));
  if (!manifest) return [`${dir}/package.json is missing: is this a pnpm deploy output?`];
  if (!existsSync(join(dir, 'dist', 'main.js'))) {
    problems.push(
      `${dir}/dist/main.js is missing: build the service before deploying, and keep dist/ out of its .npmignore`,
    );
  }
  for (const name of Object.keys(manifest.dependencies ?? {}).filter((n) => n.startsWith('@af/'))) {
    problems.push(...workspacePackageProblems(join(dir, 'node_modules', name), name));
  }
  return problems;
}

function workspacePackageProblems(pkgDir, name) {
  const manifest = readJson(join(pkgDir, 'package.json'));
  if (!manifest) return [`${name} was not copied into node_modules`];
  const out = [];
  const entry = entryPoint(manifest);
  if (entry && !existsSync(join(pkgDir, entry))) {
    out.push(`${name}: entry point ${entry} is missing (was it built? is dist/ excluded by packing rules?)`);
  }
  for (const declared of manifest.files ?? []) {
    if (!/[*?]/.test(declared) && !existsSync(join(pkgDir, declared)))
      out.push(`${name}: declared file "${declared}" is missing`);
  }
  return out;
}

// The file Node loads for `import '<name>'`: exports["."] (import/default) or main.
function entryPoint(manifest) {
  const root =
    typeof manifest.exports === 'object' && manifest.exports !== null
      ? (manifest.exports['.'] ?? manifest.exports)
      : manifest.exports;
  const fromExports = typeof root === 'string' ? root : (root?.import ?? root?.default);
  return typeof fromExports === 'string' ? fromExports : manifest.main;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node deploy/check-deploy.mjs <pnpm-deploy-output-dir>');
    process.exit(2);
  }
  const problems = deployProblems(dir);
  for (const p of problems) console.error(`check-deploy: ${p}`);
  if (problems.length === 0) console.log(`check-deploy: ${dir} is complete`);
  process.exit(problems.length === 0 ? 0 : 1);
}
