import type { z } from 'zod';

/** A failure the CLI explains in one line and exits non-zero with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

type ErrorBody = { detail?: string; errors?: { path: string; message: string }[] };

/** The public API with an API key: every call the CLI makes goes through here. */
export class ApiClient {
  readonly base: string;

  constructor(
    url: string,
    private readonly key: string,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  private async fetch(method: string, path: string, init: { body?: unknown; accept?: string; signal?: AbortSignal } = {}) {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, accept: init.accept ?? 'application/json' };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.base}/api${path}`, {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: init.signal,
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `Could not reach Launchbay at ${this.base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
    if (!response.ok) {
      let body: ErrorBody = {};
      try {
        body = (await response.json()) as ErrorBody;
      } catch {
        // not JSON
      }
      const fields = body.errors?.length ? ` (${body.errors.map((e) => `${e.path}: ${e.message}`).join('; ')})` : '';
      const detail = body.detail ?? response.statusText;
      if (response.status === 401) {
        throw new CliError(`${detail}: the API key was refused. Run \`launchbay login\` with a valid key.`);
      }
      throw new CliError(`${detail}${fields}`);
    }
    return response;
  }

  async call<S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
    const response = await this.fetch(method, path, { body });
    const parsed = schema.safeParse(await response.json());
    if (!parsed.success) throw new CliError(`Unexpected answer from ${method} ${path}: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  async text(path: string): Promise<string> {
    return (await this.fetch('GET', path, { accept: 'text/plain' })).text();
  }

  /** Server-Sent Events of `path` until `signal` aborts or the server ends the stream. */
  async *events(path: string, signal: AbortSignal): AsyncGenerator<{ event: string; id: string; data: string }> {
    const response = await this.fetch('GET', path, { accept: 'text/event-stream', signal });
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          const event = { event: 'message', id: '', data: '' };
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon <= 0) continue;
            const field = line.slice(0, colon);
            const value = line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') event.event = value;
            else if (field === 'id') event.id = value;
            else if (field === 'data') event.data += event.data ? `\n${value}` : value;
          }
          if (event.data) yield event;
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }
}
