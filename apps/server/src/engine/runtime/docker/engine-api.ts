/**
 * The few Docker Engine API calls the `docker` driver needs, over its Unix socket (or tcp://), with
 * Node's own http client: no SDK, no CLI. API version 1.41 (Docker 20.10+); Podman's
 * Docker-compatible service answers the same calls, which is how the tests run it here.
 */
import http from 'node:http';
import type { Readable } from 'node:stream';

export const DOCKER_API_VERSION = 'v1.41';

export class DockerApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type ContainerCreateBody = {
  Image: string;
  Cmd: string[];
  Env: string[];
  WorkingDir: string;
  User?: string;
  Labels: Record<string, string>;
  ExposedPorts?: Record<string, Record<string, never>>;
  HostConfig: {
    Binds?: string[];
    PortBindings?: Record<string, { HostIp: string; HostPort: string }[]>;
    Memory?: number;
    NanoCpus?: number;
    PidsLimit?: number;
    Init?: boolean;
    RestartPolicy?: { Name: 'no' };
    Ulimits?: { Name: string; Soft: number; Hard: number }[];
    ReadonlyRootfs?: boolean;
    Tmpfs?: Record<string, string>;
    CapDrop?: string[];
    SecurityOpt?: string[];
  };
};

export type ContainerState = {
  Status: 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead' | string;
  Running: boolean;
  Pid: number;
  ExitCode: number;
  StartedAt: string;
  FinishedAt: string;
};

export type ContainerInspect = {
  Id: string;
  State: ContainerState;
  Config: { Labels: Record<string, string> | null };
};

export type ContainerSummary = { Id: string; Labels: Record<string, string> | null; State: string };

type Target = { socketPath: string } | { host: string; port: number };

/** `unix:///var/run/docker.sock` (the default), a bare socket path, or `tcp://host:port`. */
export function parseDockerHost(value: string | undefined): Target {
  const raw = value?.trim() || 'unix:///var/run/docker.sock';
  if (raw.startsWith('unix://')) return { socketPath: raw.slice('unix://'.length) };
  if (raw.startsWith('/')) return { socketPath: raw };
  if (raw.startsWith('tcp://') || raw.startsWith('http://')) {
    const url = new URL(raw.replace(/^tcp:/, 'http:'));
    return { host: url.hostname, port: Number(url.port || 2375) };
  }
  throw new Error(`DOCKER_HOST must be unix:///path or tcp://host:port, not ${raw}`);
}

export class DockerEngine {
  private readonly target: Target;
  private readonly agent: http.Agent;

  constructor(dockerHost?: string) {
    this.target = parseDockerHost(dockerHost);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  }

  describe(): string {
    return 'socketPath' in this.target ? `unix://${this.target.socketPath}` : `tcp://${this.target.host}:${this.target.port}`;
  }

  /** The raw response (for streams); non-2xx statuses reject with the engine's message. */
  request(
    method: string,
    pathAndQuery: string,
    body?: unknown,
    options: { timeoutMs?: number; raw?: Readable; contentType?: string; signal?: AbortSignal } = {},
  ): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = http.request(
        {
          ...this.target,
          agent: this.agent,
          method,
          path: `/${DOCKER_API_VERSION}${pathAndQuery}`,
          headers: {
            host: 'docker',
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
            ...(options.raw ? { 'content-type': options.contentType ?? 'application/x-tar' } : {}),
          },
          signal: options.signal,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) return resolve(res);
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let message = text.trim();
            try {
              message = (JSON.parse(text) as { message?: string }).message ?? message;
            } catch {
              // not JSON: the text as it came
            }
            reject(new DockerApiError(status, `${method} ${pathAndQuery.split('?')[0]}: ${status} ${message}`.trim()));
          });
        },
      );
      if (options.timeoutMs) {
        req.setTimeout(options.timeoutMs, () =>
          req.destroy(new Error(`the Docker engine did not answer within ${options.timeoutMs} ms`)),
        );
      }
      req.on('error', reject);
      if (options.raw) options.raw.pipe(req);
      else req.end(payload);
    });
  }

  async json<T>(method: string, pathAndQuery: string, body?: unknown, timeoutMs = 30_000): Promise<T> {
    const res = await this.request(method, pathAndQuery, body, { timeoutMs });
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    // `/_ping` and a few others answer plain text.
    if (!text || !/json/.test(String(res.headers['content-type']))) return (text || null) as T;
    return JSON.parse(text) as T;
  }

  async ping(): Promise<void> {
    await this.json('GET', '/_ping', undefined, 5000).catch((error: Error) => {
      throw new Error(`The Docker engine at ${this.describe()} does not answer: ${error.message}`);
    });
  }

  async hasImage(image: string): Promise<boolean> {
    try {
      await this.json('GET', `/images/${encodeURIComponent(image)}/json`);
      return true;
    } catch (error) {
      if (error instanceof DockerApiError && error.status === 404) return false;
      throw error;
    }
  }

  /** Pulls an image; resolves when the engine has it (the progress stream has ended without an error). */
  async pull(image: string): Promise<void> {
    const [name, tag] = splitImage(image);
    const res = await this.request('POST', `/images/create?fromImage=${encodeURIComponent(name)}&tag=${encodeURIComponent(tag)}`);
    let failure: string | null = null;
    let rest = '';
    for await (const chunk of res) {
      rest += (chunk as Buffer).toString('utf8');
      const lines = rest.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.trim()) continue;
        try {
          const event = JSON.parse(line) as { error?: string; errorDetail?: { message?: string } };
          if (event.error) failure = event.errorDetail?.message ?? event.error;
        } catch {
          // a progress line cut oddly: only errors matter
        }
      }
    }
    if (failure) throw new Error(`Could not pull ${image}: ${failure}`);
  }

  async create(name: string, body: ContainerCreateBody): Promise<string> {
    const created = await this.json<{ Id: string }>('POST', `/containers/create?name=${encodeURIComponent(name)}`, body);
    return created.Id;
  }

  async start(id: string): Promise<void> {
    try {
      await this.json('POST', `/containers/${id}/start`);
    } catch (error) {
      if (!(error instanceof DockerApiError && error.status === 304)) throw error; // 304: already running
    }
  }

  async kill(id: string, signal: string): Promise<void> {
    try {
      await this.json('POST', `/containers/${id}/kill?signal=${signal}`);
    } catch (error) {
      // 404: gone; 409: not running. Either way there is nothing left to signal.
      if (!(error instanceof DockerApiError && (error.status === 404 || error.status === 409))) throw error;
    }
  }

  async remove(id: string): Promise<void> {
    try {
      await this.json('DELETE', `/containers/${id}?force=true&v=true`);
    } catch (error) {
      if (!(error instanceof DockerApiError && error.status === 404)) throw error;
    }
  }

  async inspect(id: string): Promise<ContainerInspect | null> {
    try {
      return await this.json<ContainerInspect>('GET', `/containers/${id}/json`);
    } catch (error) {
      if (error instanceof DockerApiError && error.status === 404) return null;
      throw error;
    }
  }

  /** Containers (running or not) carrying every one of `labels` (`key=value`). */
  async list(...labels: string[]): Promise<ContainerSummary[]> {
    const filters = encodeURIComponent(JSON.stringify({ label: labels }));
    return (await this.json<ContainerSummary[]>('GET', `/containers/json?all=true&filters=${filters}`)) ?? [];
  }

  /** Runs a command in a running container as `user` and waits for it; resolves with its exit code. */
  async exec(id: string, cmd: string[], user?: string): Promise<number | null> {
    const created = await this.json<{ Id: string }>('POST', `/containers/${id}/exec`, {
      Cmd: cmd,
      User: user,
      AttachStdout: false,
      AttachStderr: false,
    });
    await this.json('POST', `/exec/${created.Id}/start`, { Detach: true, Tty: false });
    for (let attempt = 0; attempt < 100; attempt++) {
      const state = await this.json<{ Running: boolean; ExitCode: number | null }>('GET', `/exec/${created.Id}/json`);
      if (!state.Running) return state.ExitCode;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return null;
  }

  /** The container's output since `sinceSeconds` (unix time), with timestamps, following it until it stops. */
  logs(id: string, sinceSeconds: number, signal?: AbortSignal): Promise<http.IncomingMessage> {
    return this.request(
      'GET',
      `/containers/${id}/logs?follow=true&stdout=true&stderr=true&timestamps=true&since=${Math.max(0, Math.floor(sinceSeconds))}`,
      undefined,
      { signal },
    );
  }

  close(): void {
    this.agent.destroy();
  }
}

/** `node:22-slim` → [`node`, `22-slim`]; a registry port is not a tag. */
export function splitImage(image: string): [string, string] {
  const at = image.lastIndexOf(':');
  if (at > image.lastIndexOf('/')) return [image.slice(0, at), image.slice(at + 1)];
  return [image, 'latest'];
}
