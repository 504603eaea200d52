import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', '*.mjs', '*.mts', 'apps/dashboard/**'] },
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through the typed AppConfig (libs/common/src/config).',
        },
      ],
    },
  },
  {
    // The `atelier` command line is a client, not the service: it reads ATELIER_URL / ATELIER_KEY in its main.
    files: ['apps/cli/src/main.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['libs/common/src/config/**/*.ts', 'test/**/*.ts', '**/*.spec.ts'],
    rules: { 'no-restricted-syntax': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
