#!/usr/bin/env node
// `pnpm docs:gen`: writes docs/playbooks.md from scripts/docs/playbooks.template.md,
// the Action I/O registry and the default deployment's ACTION_SERVICES
// (k8s/base/config.yaml). Runs on the built @af/plan (the root script builds it first).
// packages/plan/src/docs/playbook-reference.spec.ts fails while the committed page is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { actionServicesOfConfigMap, renderPlaybookReference } from '../packages/plan/dist/docs/playbook-reference.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const page = renderPlaybookReference({
  template: readFileSync(join(root, 'scripts', 'docs', 'playbooks.template.md'), 'utf8'),
  actionServices: actionServicesOfConfigMap(readFileSync(join(root, 'k8s', 'base', 'config.yaml'), 'utf8')),
});
const target = join(root, 'docs', 'playbooks.md');
let before = '';
try {
  before = readFileSync(target, 'utf8');
} catch {
  // first generation
}
if (before === page) {
  process.stdout.write('docs/playbooks.md is up to date\n');
} else {
  writeFileSync(target, page);
  process.stdout.write('wrote docs/playbooks.md\n');
}
