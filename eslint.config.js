// Lint configuration: typescript-eslint's type-aware recommended rules over every TypeScript
// folder the project compiles (tsconfig.json gives the types), and the code's formatting through
// ESLint Stylistic's rules (`npm run lint -- --fix` applies them).
import eslint from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // Build output, and the browser pages' plain scripts (served as they are, not compiled).
  { ignores: ['dist/**', 'dist2/**', 'node_modules/**', 'web/**', 'data/**', '.cache/**', 'eslint.config.js'] },
  {
    files: ['**/*.ts'],
    extends: [eslint.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    plugins: { '@stylistic': stylistic },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-constant-binary-expression': 'error',
      // A timer or handle that a closure declared before it reads is assigned after that closure.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-floating-promises': ['error', {
        // tap runs the subtests it is handed and reports their failures itself.
        allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }],
      }],
      // The frontend dispatcher answers a lone request at once and a batched one later (`A | Promise<A>`).
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // Off: Fastify plugins and the stores' promise-returning interfaces are async by contract,
      // whether or not a given body awaits.
      '@typescript-eslint/require-await': 'off',
      // Off: what it flags are JSON scalars from stored or posted data, objects already ruled out
      // or left to String() as Unleash renders them; TypeScript types such a value `{}`.
      '@typescript-eslint/no-base-to-string': 'off',
      // Formatting: the layout the code is written in, checked.
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, flatTernaryExpressions: true, offsetTernaryExpressions: true, ignoredNodes: ['TemplateLiteral *'] }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      '@stylistic/max-len': ['error', { code: 180, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': 'error',
      '@stylistic/no-multiple-empty-lines': ['error', { max: 1, maxBOF: 0, maxEOF: 0 }],
      '@stylistic/no-tabs': 'error',
      '@stylistic/linebreak-style': ['error', 'unix'],
      '@stylistic/arrow-parens': ['error', 'always'],
      '@stylistic/arrow-spacing': 'error',
      '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
      '@stylistic/keyword-spacing': 'error',
      '@stylistic/space-infix-ops': 'error',
      '@stylistic/comma-spacing': 'error',
      '@stylistic/key-spacing': 'error',
      '@stylistic/space-before-blocks': 'error',
      '@stylistic/space-before-function-paren': ['error', { anonymous: 'always', named: 'never', asyncArrow: 'always' }],
      '@stylistic/member-delimiter-style': 'error',
      '@stylistic/type-annotation-spacing': 'error',
      '@stylistic/block-spacing': 'error',
      '@stylistic/semi-spacing': 'error',
      '@stylistic/space-in-parens': ['error', 'never'],
      '@stylistic/no-multi-spaces': ['error', { ignoreEOLComments: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Off in tests: they read JSON answers and fixtures (`res.json()` is `any`) and compare them
      // with t.same/t.match; typing every answer would restate the response schemas.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
