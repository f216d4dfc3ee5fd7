import fs from 'node:fs';
import { type EdgeState, isRecordedEdgeAlive, readEdgeState, writeFileAtomic } from '@launchbay/edge-protocol';

/**
 * The state file is also the lock that keeps one edge per data folder: it is created exclusively,
 * and a file left by a process that is gone (or whose pid now belongs to another program) is stale.
 */
export function acquireState(file: string, mine: EdgeState): { acquired: true } | { acquired: false; owner: EdgeState } {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(mine), { flag: 'wx', mode: 0o600 });
      return { acquired: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = readEdgeState(file);
    if (owner && owner.pid !== process.pid && isRecordedEdgeAlive(owner)) return { acquired: false, owner };
    if (!owner && attempt === 0) {
      // Unreadable: maybe another edge created it a moment ago and is writing it. Look again once.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      continue;
    }
    fs.rmSync(file, { force: true });
  }
  throw new Error(`could not take ${file}`);
}

export function updateState(file: string, state: EdgeState): void {
  writeFileAtomic(file, JSON.stringify(state));
}

/** Removes the state file on a graceful stop, unless another edge already took it over. */
export function releaseState(file: string, instanceId: string): void {
  if (readEdgeState(file)?.instanceId === instanceId) fs.rmSync(file, { force: true });
}
