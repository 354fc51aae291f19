import { fileURLToPath } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The UI is built once, at publish time, into dist/app (served by @bosun/host at /). Workspace
// packages resolve to their sources (the bosun-source condition), so the build needs no tsc first.
export default defineConfig({
  root: fileURLToPath(new URL('./app', import.meta.url)),
  base: './',
  plugins: [react(), tailwindcss()],
  resolve: { conditions: ['bosun-source', 'browser', 'import', 'module', 'default'] },
  build: {
    outDir: fileURLToPath(new URL('./dist/app', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    chunkSizeWarningLimit: 1024,
  },
})
