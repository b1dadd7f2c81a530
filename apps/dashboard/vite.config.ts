import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Served by the api at /dashboard, same origin as /dashboard/v1. `pnpm dev` proxies the API to an
// api started by scripts/run.sh, so the page can be worked on with hot reload.
export default defineConfig({
  base: '/dashboard/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    // No inline script or style: the api's Content-Security-Policy allows only the page's own files.
    assetsInlineLimit: 0,
    rollupOptions: {
      input: { main: 'index.html', docs: 'docs/api-keys.html' },
    },
  },
  server: {
    proxy: { '/dashboard/v1': 'http://127.0.0.1:3000', '/api/v1': 'http://127.0.0.1:3000' },
  },
});
