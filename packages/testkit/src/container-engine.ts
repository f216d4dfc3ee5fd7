/**
 * A Docker Engine API for the `docker` runtime driver's tests: the host's Docker socket where one
 * answers (DOCKER_HOST or /var/run/docker.sock), else Podman's Docker-compatible service started
 * here on a socket of its own (these machines have Podman from Debian and no Docker engine), else
 * null and the tests skip. The apps' image is made here from the running Node.js binary, `sh` and
 * the libraries they load, imported through the API: nothing is pulled from the internet.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { waitUntil } from './wait';

export type ContainerEngine = {
  kind: 'docker' | 'podman';
  /** `unix:///...`, as DOCKER_HOST takes it. */
  dockerHost: string;
  /** An image with /bin/sh and this Node.js at /usr/local/bin/node. */
  image: string;
  stop(): Promise<void>;
};

function call(
  socketPath: string,
  method: string,
  urlPath: string,
  body?: NodeJS.ReadableStream,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath, method, path: urlPath, headers: body ? { 'content-type': 'application/x-tar' } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(120_000, () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
    if (body) body.pipe(req);
    else req.end();
  });
}

async function answers(socketPath: string): Promise<boolean> {
  if (!fs.existsSync(socketPath)) return false;
  try {
    return (await call(socketPath, 'GET', '/_ping')).status === 200;
  } catch {
    return false;
  }
}

function which(command: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** A root folder with Node.js, sh and their shared libraries, for `docker import`. */
function imageRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-image-'));
  const copy = (from: string, to: string) => {
    fs.mkdirSync(path.join(root, path.dirname(to)), { recursive: true });
    fs.copyFileSync(fs.realpathSync(from), path.join(root, to));
    fs.chmodSync(path.join(root, to), 0o755);
  };
  copy(process.execPath, '/usr/local/bin/node');
  copy('/bin/sh', '/bin/sh');
  for (const binary of [process.execPath, '/bin/sh']) {
    const listed = execFileSync('ldd', [binary], { encoding: 'utf8' });
    for (const match of listed.matchAll(/(\/\S+) \(0x/g)) copy(match[1]!, match[1]!);
  }
  for (const dir of ['tmp', 'app', 'etc']) fs.mkdirSync(path.join(root, dir), { recursive: true, mode: 0o1777 });
  fs.writeFileSync(
    path.join(root, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n',
  );
  fs.writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
  return root;
}

async function ensureImage(socketPath: string): Promise<string> {
  const image = `localhost/launchbay-test-node:${process.versions.node}`;
  const exists = async () => (await call(socketPath, 'GET', `/v1.41/images/${encodeURIComponent(image)}/json`)).status === 200;
  if (await exists()) return image;
  const root = imageRoot();
  try {
    const tar = spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const changes = encodeURIComponent('ENV PATH=/usr/local/bin:/usr/bin:/bin');
    const [repo, tag] = [image.slice(0, image.lastIndexOf(':')), process.versions.node];
    const imported = await call(
      socketPath,
      'POST',
      `/v1.41/images/create?fromSrc=-&repo=${encodeURIComponent(repo)}&tag=${tag}&changes=${changes}`,
      tar.stdout,
    );
    if (imported.status !== 200 || /"error"/.test(imported.text))
      throw new Error(`could not import the test image: ${imported.text}`);
    // Podman 4 names an import `repo:latest` whatever tag was asked for.
    if (!(await exists())) {
      const from = encodeURIComponent(`${repo}:latest`);
      const tagged = await call(socketPath, 'POST', `/v1.41/images/${from}/tag?repo=${encodeURIComponent(repo)}&tag=${tag}`);
      if (tagged.status >= 300) throw new Error(`could not tag the test image: ${tagged.text}`);
    }
    return image;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function startContainerEngine(): Promise<ContainerEngine | null> {
  const given = process.env.DOCKER_HOST?.startsWith('unix://') ? process.env.DOCKER_HOST.slice('unix://'.length) : null;
  for (const socket of [given, '/var/run/docker.sock'].filter((value): value is string => !!value)) {
    if (await answers(socket)) {
      const version = await call(socket, 'GET', '/version');
      if (/Podman/i.test(version.text)) continue; // podman's own socket: taken below with its settings
      return {
        kind: 'docker',
        dockerHost: `unix://${socket}`,
        image: await ensureImage(socket),
        stop: async () => {},
      };
    }
  }
  if (!which('podman') || process.getuid?.() !== 0) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-podman-'));
  const socket = path.join(dir, 'podman.sock');
  const service: ChildProcess = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], {
    stdio: ['ignore', 'ignore', fs.openSync(path.join(dir, 'service.log'), 'a')],
  });
  try {
    await waitUntil(() => answers(socket), 'podman system service to answer', 30_000, 100);
  } catch (error) {
    service.kill('SIGKILL');
    const log = fs.readFileSync(path.join(dir, 'service.log'), 'utf8').slice(-2000);
    throw new Error(`${(error as Error).message}: ${log}`);
  }
  return {
    kind: 'podman',
    dockerHost: `unix://${socket}`,
    image: await ensureImage(socket),
    stop: async () => {
      service.kill('SIGTERM');
      await new Promise((resolve) => {
        if (service.exitCode !== null) return resolve(undefined);
        service.once('exit', resolve);
        setTimeout(resolve, 5000).unref();
      });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
