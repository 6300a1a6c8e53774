import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** The area folder of a page module (`advertiser`, `publisher`, `operator`, `account`, `shared`). */
const areaOf = (id: string) => /[\\/]src[\\/]pages[\\/]([a-z]+)[\\/]/.exec(id)?.[1] ?? null;

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
    rolldownOptions: {
      output: {
        // One chunk per area of pages (src/routes.tsx loads each page lazily): an account's first
        // visit fetches its role's pages at once, and never another role's. What the pages share
        // (components, the API client) stays in chunks of its own, so the areas do not pull it in.
        codeSplitting: {
          groups: [
            { name: areaOf, debugName: 'pages by area', test: /[\\/]src[\\/]pages[\\/]/, includeDependenciesRecursively: false },
          ],
        },
      },
    },
  },
});
