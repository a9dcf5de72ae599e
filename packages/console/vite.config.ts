import { defineConfig } from 'vite';

// The console is served by the host at /console/ (see packages/server), from these static files: no CDN,
// everything it needs is in dist/. The language server runs in a module worker built from the same
// packages the editor extension uses.
export default defineConfig({
  base: '/console/',
  root: new URL('.', import.meta.url).pathname,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 4096,
  },
  worker: { format: 'es' },
  // Node built-ins some shared modules name but never call in a page.
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
});
