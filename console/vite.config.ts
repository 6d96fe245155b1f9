import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/**
 * The console (issue 10) and the partner portal (issue 22, docs/portal.md): one front end, two pages
 * (index.html, portal.html) sharing their components and assets, built by `npm run build` into
 * dist/console, which the server serves at /console and /portal. Everything they need is in the
 * bundle: no CDN, no font or script from elsewhere.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [preact()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    // The CSP allows scripts and styles from this origin only: no inline module preload polyfill.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rolldownOptions: {
      input: {
        console: `${import.meta.dirname}/index.html`,
        portal: `${import.meta.dirname}/portal.html`,
      },
    },
  },
});
