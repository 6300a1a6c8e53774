import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The server serves dist/ at / (src/modules/web-app): hashed files under /assets are cached for a year.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline module-preload polyfill: the Content-Security-Policy allows no inline script.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
});
