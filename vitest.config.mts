import { resolve } from 'node:path';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const libs = resolve(import.meta.dirname, 'libs');

export default defineConfig({
  // SWC keeps decorator metadata, which Nest's dependency injection needs (esbuild drops it).
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    // The same `@app/<lib>` aliases as tsconfig.json's paths.
    alias: [{ find: /^@app\/([a-z-]+)(\/.*)?$/, replacement: `${libs}/$1/src$2` }],
  },
  test: {
    include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/**/*.e2e-spec.ts'],
    exclude: ['**/node_modules/**', 'apps/dashboard/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
