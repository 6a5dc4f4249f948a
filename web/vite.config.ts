import { defineConfig } from 'vite';

// The service the dev server forwards API calls to (`npm run dev:web`, beside `npm run start:dev`).
const api = process.env.BRIDLE_API_ORIGIN ?? 'http://localhost:3000';

// Run from the repository root (`vite build web`, `vite web`): web/ is the root, web/dist the output.
export default defineConfig({
  base: '/',
  // Preact's JSX runtime (tsconfig.json says the same to the type checker).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true },
  server: {
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(['/auth', '/api', '/admin', '/oauth'].map((path) => [path, { target: api, changeOrigin: true }])),
  },
});
