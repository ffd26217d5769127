#!/usr/bin/env node
/**
 * CI check of the OpenAPI document (no server needed: it is rendered from
 * dist/): openapi-typescript generates the client types, and every
 * operation's success answer must come out as a real type — not unknown,
 * any, never or an empty object. A 204 route must document "no content".
 * Run after `pnpm build`: `pnpm --filter @af/gateway openapi:check`;
 * `--out <file>` also writes the generated types.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { openApiDocument } from '../dist/http/openapi.js';

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** Every operation's 2xx answers: [label, type expression | null for no content]. */
export function successAnswers(doc) {
  const out = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const responses = item[method].responses ?? {};
      const ok = Object.keys(responses).filter((s) => /^2\d\d$/.test(s));
      if (!ok.length) out.push({ label: `${method} ${path}`, problem: 'documents no success answer' });
      for (const status of ok) {
        const content = responses[status].content;
        const base = `paths[${JSON.stringify(path)}][${JSON.stringify(method)}]["responses"][${status}]`;
        if (!content) {
          out.push({ label: `${method} ${path} ${status}`, ...(status === '204' ? { noContent: base } : { problem: `answers ${status} without a documented body` }) });
          continue;
        }
        for (const media of Object.keys(content)) out.push({ label: `${method} ${path} ${status} ${media}`, expr: `${base}["content"][${JSON.stringify(media)}]` });
      }
    }
  }
  return out;
}

/** Why a generated type is useless as an answer type, or undefined. */
function emptiness(checker, type) {
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Never)) return checker.typeToString(type);
  if (type.isUnion()) return type.types.every((t) => emptiness(checker, t)) ? checker.typeToString(type) : undefined;
  // `{}` or Record<string, never>: nothing a client could read.
  const indexes = checker.getIndexInfosOfType(type).filter((i) => !(i.type.flags & ts.TypeFlags.Never));
  if (type.flags & ts.TypeFlags.Object && !checker.getPropertiesOfType(type).length && !indexes.length) return 'an empty object';
  return undefined;
}

export async function checkOpenApi(doc, outFile) {
  const types = astToString(await openapiTS(doc));
  if (outFile) writeFileSync(outFile, types);
  const answers = successAnswers(doc);
  const problems = answers.filter((a) => a.problem).map((a) => `${a.label}: ${a.problem}`);
  const probes = answers.filter((a) => a.expr || a.noContent);
  const dir = mkdtempSync(join(tmpdir(), 'openapi-check-'));
  try {
    writeFileSync(join(dir, 'api.ts'), types);
    writeFileSync(
      join(dir, 'probe.ts'),
      `import type { paths } from './api';\n${probes.map((p, i) => (p.expr ? `export type A${i} = ${p.expr};` : `export type A${i} = ${p.noContent};`)).join('\n')}\n`,
    );
    const program = ts.createProgram([join(dir, 'probe.ts')], { strict: true, noEmit: true, skipLibCheck: true, moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 });
    for (const d of ts.getPreEmitDiagnostics(program)) problems.push(`generated types do not compile: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    const checker = program.getTypeChecker();
    const probe = program.getSourceFile(join(dir, 'probe.ts'));
    const aliases = probe.statements.filter(ts.isTypeAliasDeclaration);
    aliases.forEach((alias, i) => {
      const type = checker.getTypeAtLocation(alias.name);
      if (probes[i].noContent) return;
      const why = emptiness(checker, type);
      if (why) problems.push(`${probes[i].label}: the generated answer type is ${why}`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { operations: new Set(answers.map((a) => a.label.split(' ').slice(0, 2).join(' '))).size, answers: probes.length, problems };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--out');
  const { operations, answers, problems } = await checkOpenApi(openApiDocument(), at > 0 ? process.argv[at + 1] : undefined);
  if (problems.length) {
    console.error(`openapi:check: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log(`openapi:check: ${operations} operations, ${answers} success answers, every one typed`);
}
