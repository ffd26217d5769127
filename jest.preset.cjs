// Shared Jest settings: TypeScript (ESM source, NodeNext `.js` suffixes) is
// compiled to CommonJS by SWC; workspace packages resolve to their sources so
// unit tests never need a build.
const path = require('node:path');

const root = __dirname;
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

module.exports = function preset(dir, kind = 'unit') {
  return {
    rootDir: dir,
    testEnvironment: 'node',
    transform: { '^.+\\.(t|j|mj)s$': swc },
    // ESM-only dependencies are transformed too.
    transformIgnorePatterns: ['/node_modules/\\.pnpm/(?!(jose|@nats-io|@nestjs|undici))'],
    moduleNameMapper: {
      '^@af/([a-z-]+)$': path.join(root, 'packages/$1/src/index.ts'),
      // Subpath exports (`@af/connectors/testing`): src/<name>.ts of the package.
      '^@af/([a-z-]+)/([a-z-]+)$': path.join(root, 'packages/$1/src/$2.ts'),
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testMatch:
      kind === 'unit' ? ['<rootDir>/src/**/*.spec.ts'] : ['<rootDir>/test/**/*.int-spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
    testTimeout: kind === 'unit' ? 10_000 : 120_000,
    maxWorkers: kind === 'unit' ? '50%' : 1,
  };
};
