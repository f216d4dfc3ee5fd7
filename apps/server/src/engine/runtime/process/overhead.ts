/**
 * What running an app through the process driver costs beside the app itself: the memory of the
 * runtime's own processes (bwrap's monitor and init, a shell that waits for the app instead of
 * becoming it) against the app's, per process. Read from /proc for a deployment recorded in the
 * driver's state folder, so a benchmark can measure apps a running platform started.
 */
import { isSameProcessAlive } from '@launchbay/edge-protocol';
import { execForm } from '../../../lib/shell';
import { commandLineOf, type MemoryUse, memoryOf, processTree, programOf } from './proc';
import { sandboxScript } from './sandbox';
import { readDeploymentRecord, stateFile } from './state';

export type ProcessGroupUse = MemoryUse & {
  /** pid and program of each process counted. */
  processes: { pid: number; program: string; rssKb: number; pssKb: number }[];
};

export type ProcessOverhead = {
  type: string;
  index: number;
  pid: number;
  runtime: ProcessGroupUse;
  app: ProcessGroupUse;
};

export type DeploymentOverhead = {
  deploymentId: number;
  processes: ProcessOverhead[];
  runtime: MemoryUse;
  app: MemoryUse;
};

const RUNTIME_PROGRAMS = new Set(['bwrap', 'setpriv']);

function emptyUse(): ProcessGroupUse {
  return { rssKb: 0, pssKb: 0, processes: [] };
}

/** The runtime's own processes: bubblewrap, and a shell the driver started that waits for the app instead of becoming it. */
function isRuntimeProcess(pid: number, scripts: Set<string>): boolean {
  const program = programOf(pid);
  if (program && RUNTIME_PROGRAMS.has(program)) return true;
  const argv = commandLineOf(pid);
  return (
    argv.length === 3 &&
    (program === 'sh' || program === 'dash' || program === 'bash') &&
    argv[1] === '-c' &&
    scripts.has(argv[2]!)
  );
}

export function measureRuntimeOverhead(stateDir: string, deploymentId: number): DeploymentOverhead | null {
  const record = readDeploymentRecord(stateFile(stateDir, deploymentId));
  if (!record) return null;
  const result: DeploymentOverhead = {
    deploymentId,
    processes: [],
    runtime: { rssKb: 0, pssKb: 0 },
    app: { rssKb: 0, pssKb: 0 },
  };
  for (const process of record.processes) {
    if (process.pid === null || !isSameProcessAlive(process.pid, process.processStart)) continue;
    const command = record.spec.processes.find((spec) => spec.type === process.type)?.command ?? '';
    const scripts = new Set([execForm(command), sandboxScript(record.spec.appDir, command)]);
    const entry: ProcessOverhead = {
      type: process.type,
      index: process.index,
      pid: process.pid,
      runtime: emptyUse(),
      app: emptyUse(),
    };
    for (const pid of processTree(process.pid)) {
      const memory = memoryOf(pid);
      if (!memory) continue;
      const side = isRuntimeProcess(pid, scripts) ? entry.runtime : entry.app;
      side.processes.push({ pid, program: programOf(pid) ?? '?', ...memory });
      side.rssKb += memory.rssKb;
      side.pssKb += memory.pssKb;
    }
    result.processes.push(entry);
    result.runtime.rssKb += entry.runtime.rssKb;
    result.runtime.pssKb += entry.runtime.pssKb;
    result.app.rssKb += entry.app.rssKb;
    result.app.pssKb += entry.app.pssKb;
  }
  return result;
}
