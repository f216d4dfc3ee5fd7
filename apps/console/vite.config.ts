import { fileURLToPath, URL } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: 'http://localhost:3000', changeOrigin: false } },
  },
  preview: {
    proxy: { '/api': { target: 'http://localhost:3000', changeOrigin: false } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // TanStack Query in one stable chunk. Left to automatic splitting, its mutation code moves
          // out of the entry into a separate common chunk as soon as a few lazy pages use
          // useMutation, which adds a request and ~0.4 KB gzipped to the login page.
          groups: [{ name: 'query', test: /[\\/]node_modules[\\/]@tanstack[\\/]/ }],
        },
      },
    },
  },
});
