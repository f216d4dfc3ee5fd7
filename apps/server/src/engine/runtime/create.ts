import path from 'node:path';
import { createDockerDriver } from './docker/driver';
import type { RuntimeDriver } from './driver';
import { createProcessDriver } from './process/driver';

export type RuntimeChoice = {
  kind: 'process' | 'docker';
  /** The platform's data folder: the drivers keep their state in `runtime/` inside it. */
  dataDir: string;
  dockerHost?: string;
  dockerImage: string;
  log: (message: string) => void;
};

/**
 * The runtime the platform runs apps with. Under `docker`, installs and builds still run on the
 * host through the process driver's sandbox (one build cache, one pipeline for both).
 */
export function createRuntimeDriver(choice: RuntimeChoice): RuntimeDriver {
  const stateDir = path.join(choice.dataDir, 'runtime');
  const processDriver = createProcessDriver({ stateDir, dataDir: choice.dataDir, log: choice.log });
  if (choice.kind === 'process') return processDriver;
  return createDockerDriver({
    stateDir,
    dockerHost: choice.dockerHost,
    image: choice.dockerImage,
    builds: processDriver,
    log: choice.log,
  });
}
