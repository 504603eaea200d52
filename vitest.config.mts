import { availableParallelism } from 'node:os';
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
    // Two files at a time at least (vitest's default is one less than the cores: one file at a time on CI's two):
    // most files wait on the services, workers and servers they start, so two overlap well. Measured on 2 cores:
    // embedded 502 s against 885 s, PostgreSQL + Redis 612 s against 924 s, the same tests passing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
