// The shared preset, plus: commander is ESM-only, so it is compiled like the
// other ESM dependencies; and `undici` (declared in package.json) resolves to
// connector-runtime's copy of the same version until `pnpm install` links it
// into this package.
const path = require('node:path');

module.exports = function cliJestConfig(kind) {
  const preset = require('../../jest.preset.cjs')(__dirname, kind);
  let undici;
  try {
    undici = require.resolve('undici', { paths: [__dirname] });
  } catch {
    undici = require.resolve('undici', { paths: [path.join(__dirname, '../../services/connector-runtime')] });
  }
  return {
    ...preset,
    transformIgnorePatterns: ['/node_modules/\\.pnpm/(?!(jose|@nats-io|@nestjs|undici|commander))'],
    moduleNameMapper: { '^undici$': undici, ...preset.moduleNameMapper },
  };
};
