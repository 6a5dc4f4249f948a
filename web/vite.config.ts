import { defineConfig } from 'vite';

// Run as `vite build web` from the repository root: web/ is the root, web/dist the output.
export default defineConfig({
  base: '/',
  build: { outDir: 'dist', emptyOutDir: true },
});
