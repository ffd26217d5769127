// Copies ../../protos into ./proto at build time so a deployed package is
// self-contained (the copy is not committed; protos/ is the source).
import { cpSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(pkg, 'proto'), { recursive: true, force: true });
cpSync(join(pkg, '../../protos/agentfactory'), join(pkg, 'proto/agentfactory'), { recursive: true });
