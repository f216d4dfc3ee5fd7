import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// The console runs zod jitless under its Content-Security-Policy (app/zod-without-eval.ts): test the same way.
import '@/app/zod-without-eval';

afterEach(() => {
  cleanup();
});
