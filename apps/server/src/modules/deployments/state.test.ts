import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEPLOYMENT_STATUSES } from '@launchbay/contract';
import { describe, expect, it } from 'vitest';
import { canTransition, endedBeforeLive, TRANSITIONS } from './state';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Writes of a deployment's status: through Drizzle (`update(deployments)...set({ status`) or in SQL. */
const STATUS_WRITES = [
  /update\(deployments\)\s*\.set\(\{[^}]*\bstatus\s*:/g,
  /UPDATE\s+"?deployments"?\s+SET\b[^;`'"]*\bstatus\s*=/gi,
];

describe('deployment statuses', () => {
  it('the table names every status of the contract, and each one leads only where the lifecycle says', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...DEPLOYMENT_STATUSES].sort());
    expect(TRANSITIONS).toEqual({
      queued: ['building', 'deploying', 'failed', 'cancelled'],
      building: ['deploying', 'failed', 'cancelled', 'queued'],
      deploying: ['ready', 'failed', 'crashed', 'cancelled', 'queued', 'building'],
      ready: ['paused', 'crashed'],
      paused: ['ready', 'crashed'],
      crashed: ['ready'],
      failed: [],
      cancelled: [],
    });
    // A deployment that went live never goes back to building, and an ended one never moves again.
    for (const live of ['ready', 'paused', 'crashed'] as const) {
      for (const before of ['queued', 'building', 'deploying'] as const) expect(canTransition(live, before)).toBe(false);
    }
    for (const to of DEPLOYMENT_STATUSES) {
      expect(canTransition('failed', to)).toBe(false);
      expect(canTransition('cancelled', to)).toBe(false);
    }
  });

  it('a crash ends the pipeline only for a deployment that never went live', () => {
    expect(endedBeforeLive({ status: 'crashed', readyAt: null })).toBe(true);
    expect(endedBeforeLive({ status: 'crashed', readyAt: new Date() })).toBe(false);
    expect(endedBeforeLive({ status: 'failed', readyAt: null })).toBe(true);
    expect(endedBeforeLive({ status: 'ready', readyAt: new Date() })).toBe(false);
  });

  it('no code but state.ts writes a deployment status: every change goes through the table', () => {
    const offenders = sourceFiles(SRC).flatMap((file) => {
      if (file.endsWith(path.join('modules', 'deployments', 'state.ts'))) return [];
      const text = fs.readFileSync(file, 'utf8');
      return STATUS_WRITES.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => `${path.relative(SRC, file)}: ${m[0]}`));
    });
    expect(offenders).toEqual([]);
    // The check itself finds such a write.
    const sample = "await ctx.db.update(deployments).set({ status: 'building' }).where(eq(deployments.id, id));";
    expect(STATUS_WRITES.some((pattern) => [...sample.matchAll(pattern)].length > 0)).toBe(true);
    expect(STATUS_WRITES.some((pattern) => [...`UPDATE deployments SET status = 'ready'`.matchAll(pattern)].length > 0)).toBe(
      true,
    );
  });
});
