import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// The console is served by the gateway at `/` and calls only the gateway's `/api`.
// `pnpm dev` proxies /api to a running gateway (GATEWAY_URL, default http://127.0.0.1:8080).
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 600 },
  server: { proxy: { '/api': process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080' } },
  test: {
    environment: 'node',
    include: ['src/**/*.test.{ts,tsx}'],
    // CI runs every package's unit tests at once on two cores: 5 s is too short for a cold import there.
    testTimeout: 30_000,
  },
});
