// The account dashboard: built by scripts/build.mjs (`npm run build`) into dist/dashboard, served by the API at
// /dashboard (apps/api/src/dashboard).
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: resolve(import.meta.dirname, '../../dist/dashboard'),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:3000', '/samples': 'http://127.0.0.1:3000' } },
});
