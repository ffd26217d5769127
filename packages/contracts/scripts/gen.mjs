// Regenerates src/gen from ../../protos (offline: buf and ts-proto come from
// npm). The build copies the .proto files the gRPC runtime loads into ./proto.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const protos = join(pkg, '../../protos');
const buf = join(pkg, 'node_modules/.bin/buf');

// Lint first: a failing lint must leave the current generated code in place.
execFileSync(buf, ['lint', protos], { stdio: 'inherit' });
rmSync(join(pkg, 'src/gen'), { recursive: true, force: true });
execFileSync(buf, ['generate', protos, '--template', join(pkg, 'buf.gen.yaml'), '-o', pkg], {
  stdio: 'inherit',
  cwd: pkg,
});
// protobufjs is CommonJS: Node's ESM loader cannot see its named exports, so
// the `wrappers` import ts-proto emits is rewritten to a default import.
const NAMED = 'import { wrappers } from "protobufjs";';
const DEFAULT = 'import protobufjs from "protobufjs";\nconst { wrappers } = protobufjs;';
for (const file of readdirSync(join(pkg, 'src/gen'), { recursive: true })) {
  if (!String(file).endsWith('.ts')) continue;
  const path = join(pkg, 'src/gen', String(file));
  const text = readFileSync(path, 'utf8');
  if (text.includes(NAMED)) writeFileSync(path, text.replace(NAMED, DEFAULT));
}
console.log('generated', join(pkg, 'src/gen'));
