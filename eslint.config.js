// Flat config shared by every package (`pnpm lint`).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'packages/contracts/src/gen/**', '**/*.cjs', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-eval': 'error',
      'no-new-func': 'error',
    },
  },
  {
    // House rule: domain code is pure — no framework, ORM or wire types. The
    // connector types (packages/connectors) are domain code shared with the CLI.
    files: ['services/*/src/domain/**/*.ts', 'packages/connectors/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@nestjs/*'], message: 'domain code must not depend on NestJS' },
            { group: ['typeorm', 'pg'], message: 'domain code must not touch the database' },
            { group: ['@af/contracts', '@grpc/*'], message: 'wire types stay at the edge (grpc/*.mapper.ts)' },
          ],
        },
      ],
    },
  },
);
