import net from 'node:net';
import type { EmailConfig, SlackConfig } from '@launchbay/contract';
import nodemailer from 'nodemailer';

/**
 * Real delivery: email over SMTP with nodemailer, Slack through its incoming-webhook API with
 * fetch. Every failure becomes a DeliveryError that says whether trying again could help
 * (a refused login or a 4xx answer will not; a dropped connection or a 5xx answer might).
 */

export class DeliveryError extends Error {
  constructor(
    message: string,
    /** Retrying cannot help: the receiving server refused (SMTP 5xx, HTTP 4xx but 429) or the settings are wrong. */
    readonly permanent: boolean,
    /** The receiver asked us to wait (HTTP 429 Retry-After). */
    readonly retryAfterMs?: number,
    /** Cut short by the platform stopping: the outcome is unknown, so it is not counted as an attempt. */
    readonly interrupted = false,
  ) {
    super(message);
  }
}

export type OutgoingMessage = {
  subject: string;
  text: string;
  html: string;
  slack: { text: string; blocks: unknown[] };
};

export type SendOptions = {
  /** Aborted when the platform stops. */
  signal?: AbortSignal;
  timeoutMs: number;
};

export type SendResult = { warning: string | null };

const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

type ErrorLike = {
  code?: unknown;
  responseCode?: unknown;
  response?: unknown;
  message?: unknown;
  cause?: unknown;
  name?: unknown;
};

/** The error and its causes, outermost first. */
function chain(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    out.push(current as ErrorLike);
    current = (current as ErrorLike).cause;
  }
  return out;
}

function certificateProblem(error: unknown): string | undefined {
  for (const link of chain(error)) {
    if (typeof link.code === 'string' && CERTIFICATE_CODES.has(link.code)) return String(link.message ?? link.code);
  }
  const message = String((error as ErrorLike)?.message ?? '');
  if (/self[- ]signed certificate|unable to verify the first certificate|certificate has expired|altnames/i.test(message)) {
    return message;
  }
  return undefined;
}

function combinedSignal(options: SendOptions): { signal: AbortSignal; interrupted: () => boolean } {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  return { signal, interrupted: () => options.signal?.aborted === true };
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** Sends one message through the provider's SMTP server; resolves only when the server accepted it. */
export async function sendEmail(config: EmailConfig, message: OutgoingMessage, options: SendOptions): Promise<SendResult> {
  const where = `${config.smtp_host}:${config.smtp_port}`;
  const stepTimeout = Math.max(1_000, Math.min(options.timeoutMs, 15_000));
  const transport = nodemailer.createTransport({
    host: config.smtp_host,
    port: config.smtp_port,
    // Tls: implicit TLS from the first byte. Starttls: plain, then upgraded (required or when offered). None: never TLS.
    secure: config.tls_mode === 'Tls',
    ignoreTLS: config.tls_mode === 'None',
    requireTLS: config.tls_mode === 'Starttls' && config.starttls_required,
    auth: config.username ? { user: config.username, pass: config.password } : undefined,
    tls: {
      rejectUnauthorized: !config.accept_invalid_certs,
      ...(net.isIP(config.smtp_host) ? {} : { servername: config.smtp_host }),
    },
    connectionTimeout: stepTimeout,
    greetingTimeout: stepTimeout,
    socketTimeout: stepTimeout,
    allowInternalNetworkInterfaces: true,
  });
  const { signal, interrupted } = combinedSignal(options);
  try {
    const info = await transport.sendMail({
      from: config.from_name ? { name: config.from_name, address: config.from_address } : config.from_address,
      to: config.to_addresses,
      subject: message.subject,
      text: message.text,
      html: message.html,
      signal,
    });
    const rejected = (info.rejected ?? []).map(String);
    if (info.accepted.length === 0) {
      throw new DeliveryError(`The SMTP server at ${where} accepted no recipient: ${info.response ?? 'no answer'}`, true);
    }
    if (rejected.length > 0) {
      const reasons = (info.rejectedErrors ?? []).map((e) => e.message).join('; ');
      return {
        warning: `Accepted for ${info.accepted.length} recipient(s); refused ${rejected.join(', ')}${reasons ? `: ${reasons}` : ''}`,
      };
    }
    return { warning: null };
  } catch (error) {
    throw emailError(error, where, options.timeoutMs, interrupted());
  } finally {
    transport.close();
  }
}

function emailError(error: unknown, where: string, timeoutMs: number, interrupted: boolean): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const e = error as ErrorLike;
  const message = String(e?.message ?? error);
  if (interrupted) return new DeliveryError('Interrupted: the platform stopped while sending', false, undefined, true);
  if (e?.code === 'EABORT')
    return new DeliveryError(`No answer from the SMTP server at ${where} within ${seconds(timeoutMs)}`, false);
  const certificate = certificateProblem(error);
  if (certificate) {
    return new DeliveryError(
      `The TLS certificate of the SMTP server at ${where} is not trusted (${certificate}). ` +
        'Use a trusted certificate, or turn on "Accept invalid certificates" if you trust this server.',
      true,
    );
  }
  const responseCode = typeof e?.responseCode === 'number' ? e.responseCode : undefined;
  if (responseCode !== undefined) {
    // The server answered: its reply text is the reason. 5xx is final; 4xx means try later.
    const reply = typeof e.response === 'string' && !message.includes(e.response) ? `${message}: ${e.response}` : message;
    return new DeliveryError(`The SMTP server at ${where} refused: ${reply}`, responseCode >= 500);
  }
  switch (e?.code) {
    case 'ETLS':
      return new DeliveryError(`TLS with the SMTP server at ${where} failed: ${message}`, true);
    case 'EAUTH':
      return new DeliveryError(`The SMTP server at ${where} refused the login: ${message}`, true);
    case 'EENVELOPE':
    case 'EMESSAGE':
    case 'ECONFIG':
      return new DeliveryError(`The SMTP server at ${where} refused the message: ${message}`, true);
    default:
      return new DeliveryError(`Could not deliver through the SMTP server at ${where}: ${message}`, false);
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const asSeconds = Number(header);
  if (Number.isFinite(asSeconds) && asSeconds >= 0) return asSeconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Posts one message to a Slack incoming webhook; resolves only on a 2xx answer. */
export async function sendSlack(config: SlackConfig, message: OutgoingMessage, options: SendOptions): Promise<SendResult> {
  const host = new URL(config.webhook_url).host; // never the path: it is the secret
  const { signal, interrupted } = combinedSignal(options);
  const payload = {
    text: message.slack.text,
    ...(config.channel ? { channel: config.channel } : {}),
    blocks: message.slack.blocks,
  };
  let response: Response;
  let body: string;
  try {
    response = await fetch(config.webhook_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Launchbay' },
      body: JSON.stringify(payload),
      redirect: 'manual',
      signal,
    });
    body = (await response.text()).trim().slice(0, 1000);
  } catch (error) {
    if (interrupted()) throw new DeliveryError('Interrupted: the platform stopped while sending', false, undefined, true);
    if (signal.aborted) throw new DeliveryError(`No answer from ${host} within ${seconds(options.timeoutMs)}`, false);
    const cause = chain(error)
      .slice(1)
      .map((link) => String(link.message ?? link.code ?? ''))
      .find(Boolean);
    throw new DeliveryError(`Could not reach ${host}: ${cause ?? (error as Error).message}`, false);
  }
  if (response.ok) return { warning: null };
  const text = body || response.statusText || 'no reason given';
  if (response.status >= 300 && response.status < 400) {
    throw new DeliveryError(`The webhook at ${host} answered HTTP ${response.status} (a redirect): check the webhook URL`, true);
  }
  if (response.status === 429) {
    throw new DeliveryError(`${host} answered HTTP 429: ${text}`, false, retryAfterMs(response.headers.get('retry-after')));
  }
  throw new DeliveryError(`${host} answered HTTP ${response.status}: ${text}`, response.status < 500);
}
