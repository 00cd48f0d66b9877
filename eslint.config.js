// Lint rules that catch what the type checker does not: floating promises are the
// classic way a trading daemon loses an error (see ../shared/style.md, "Avoid").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'var/**', 'dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name='parseFloat']", message: 'Money is exact: parse amounts to bigint (src/api/amounts.ts).' },
      ],
    },
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js', 'ecosystem.config.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', SharedArrayBuffer: 'readonly', Atomics: 'readonly', Int32Array: 'readonly', module: 'writable', require: 'readonly', __dirname: 'readonly' } },
  },
);
