// ESLint flat config: typescript-eslint's strict, type-checked rules on src/, test/ and
// vitest.config.ts (all in tsconfig.test.json); formatting is Prettier's job (eslint-config-prettier).
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

const strictTemplates = { allowAny: false, allowBoolean: false, allowNever: false, allowNullish: false, allowRegExp: false };

export default tseslint.config(
  // clients/typescript/src/generated/ and console/src/generated/ are openapi-typescript's output
  // (npm run generate:client), checked by check:client.
  {
    ignores: [
      'dist/',
      'data/',
      'coverage/',
      'node_modules/',
      'clients/typescript/dist/',
      'clients/typescript/src/generated/',
      'console/src/generated/',
    ],
  },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: ['./tsconfig.test.json'], tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Named explicitly so that they stay on whatever the presets do. A promise nobody awaits goes
      // to runInBackground (src/background.ts), which reports its failure: `void promise` is refused.
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // The code writes `import type { X }` when all are types, `import { a, type X }` when mixed.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // The strict preset's options, but numbers in messages (`${limit} characters`) are fine.
      '@typescript-eslint/restrict-template-expressions': ['error', { ...strictTemplates, allowNumber: true }],
      // Fastify plugins and hooks and Kysely migrations are async by contract, with or without an await.
      '@typescript-eslint/require-await': 'off',
      // `(x) => callback(x)` handing on a void call is idiomatic; braces would add nothing.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // A blank string means "not given" here (environment variables, optional inputs): `||` is meant.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // `!row || row.status !== 'active'` states the not-found case; `row?.status !== 'active'` hides it.
      '@typescript-eslint/prefer-optional-chain': 'off',
      // Its fix writes `x!`, which no-non-null-assertion (strict) refuses: the two rules contradict.
      '@typescript-eslint/non-nullable-type-assertion-style': 'off',
      // `const { omitted: _omitted, ...rest } = obj` is how a property is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    // Kysely's documented migration signature: migrations must not depend on today's schema types.
    files: ['src/db/migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // One shape for every change (src/changes/run-change.ts, executed by src/db/execute-change.ts):
    // outside them, no service opens a transaction of its own, runs a change's writes or writes its
    // audit rows, events or idempotency mark. The exceptions are named: the delivery engine's own
    // queue transactions, the sandbox seed (other services' writes over one transaction at
    // start-up) and the re-encryption of secrets at rest.
    files: ['src/**/*.ts'],
    ignores: [
      'src/changes/**',
      'src/db/**',
      'src/delivery/dispatcher.ts',
      'src/delivery/delivery-queue.service.ts',
      'src/webhooks/secret-encryption.service.ts',
      'src/sandbox-seed.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(transaction|startTransaction)$/]:not([callee.object.name='change'])",
          message: 'Write through runChange (src/changes/run-change.ts): it gives the work its transaction.',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db/execute-change.js'],
              message: 'A change is run by runChange (src/changes/run-change.ts): it alone hands its writes to the database.',
            },
            {
              group: ['**/changes/change-rows.repository.js'],
              message: 'Only runChange writes a change’s audit rows, events and idempotency mark.',
            },
            {
              group: ['**/audit/audit.repository.js'],
              message: 'The audit trail is written by runChange (changes) and the read trail (audit/).',
            },
          ],
        },
      ],
    },
  },
  {
    // Kysely's own PostgreSQL introspector reads every schema, so another test file's schema being
    // dropped meanwhile fails a migration (src/db/current-schema-introspector.ts). Everything that
    // opens PostgreSQL uses the dialect that reads only its own schema.
    // (src/ opens it only through src/db/create-db.ts; a second block on src/ would replace the
    // runChange rule above, since flat config keeps the last setting of a rule.)
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='PostgresDialect']",
          message:
            'Use CurrentSchemaPostgresDialect (src/db/current-schema-introspector.ts): it introspects only its own schema.',
        },
      ],
    },
  },
  {
    // The audit trail's own folder reads and writes its table.
    files: ['src/audit/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Tests read JSON response bodies (`any` by design) and assert on values they just checked exist.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { ...strictTemplates, allowNumber: true, allowAny: true }],
    },
  },
  {
    // The console (browser code, Preact) has its own TypeScript project: DOM types, JSX.
    files: ['console/**/*.ts', 'console/**/*.tsx'],
    languageOptions: {
      parserOptions: { project: ['./console/tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // Plain JavaScript outside the TypeScript project: this file, scripts/, examples/.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  prettier,
);
