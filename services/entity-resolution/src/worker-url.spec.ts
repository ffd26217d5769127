import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compiledWorkerUrl } from './worker-url.js';

describe('compiledWorkerUrl', () => {
  const root = mkdtempSync(join(tmpdir(), 'worker-url-'));
  mkdirSync(join(root, 'src', 'infra'), { recursive: true });
  mkdirSync(join(root, 'dist', 'infra'), { recursive: true });
  const fromSrc = pathToFileURL(join(root, 'src', 'infra', 'pool.ts')).href;
  const fromDist = pathToFileURL(join(root, 'dist', 'infra', 'pool.js')).href;

  it('answers the compiled file beside the module, else the build copy of a source module, else says to build', () => {
    expect(() => compiledWorkerUrl(fromSrc, './w.js')).toThrow(/no compiled \.\/w\.js beside .*src\/infra\/pool\.ts \(build the package first/);
    writeFileSync(join(root, 'dist', 'infra', 'w.js'), '');
    expect(compiledWorkerUrl(fromSrc, './w.js').pathname).toBe(pathToFileURL(join(root, 'dist', 'infra', 'w.js')).pathname);
    expect(compiledWorkerUrl(fromDist, './w.js').pathname).toBe(pathToFileURL(join(root, 'dist', 'infra', 'w.js')).pathname);
    writeFileSync(join(root, 'src', 'infra', 'w.js'), '');
    expect(compiledWorkerUrl(fromSrc, './w.js').pathname).toBe(pathToFileURL(join(root, 'src', 'infra', 'w.js')).pathname);
  });
});
