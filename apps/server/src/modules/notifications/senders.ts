import net from 'node:net';
import type { EmailConfig, SlackConfig } from '@launchbay/contract';
import { type OutboundPolicy, outboundFetch, outboundRefusal, type ResolvedAddress, resolveOutbound } from '../../lib/outbound';

/**
 * Real delivery: email over SMTP with nodemailer, Slack through its incoming-webhook API with
 * fetch, both through the outbound guard (lib/outbound.ts). Every failure becomes a DeliveryError
 * that says whether trying again could help (a refused login or a 4xx answer will not; a dropped
 * connection or a 5xx answer might).
 *
 * Failure messages say what failed in our own words, plus an HTTP status or SMTP reply code,
 * never what the target answered: they reach the caller and every reader (last_delivery.error),
 * and the target may be something the sender should not read. Network-level failures (refused,
 * reset, timed out, unknown name) all read 'Could not connect to host:port', so the test button
 * tells nothing about which ports are open.
 */

export class DeliveryError extends Error {
  constructor(
    message: string,
    /** Retrying cannot help: the receiving server refused (SMTP 5xx, HTTP 4xx but 429), the address is not allowed, or the settings are wrong. */
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
  /** Which addresses this provider may reach (its owner's trust, the platform setting). */
  policy: OutboundPolicy;
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
  command?: unknown;
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

/** Node's own words about a certificate it did not trust (never the server's). */
function certificateProblem(error: unknown): string | undefined {
  for (const link of chain(error)) {
    if (typeof link.code === 'string' && CERTIFICATE_CODES.has(link.code)) return String(link.message ?? link.code);
  }
  const e = error as ErrorLike;
  if (e?.response !== undefined) return undefined; // a server reply: its text is not ours to repeat
  const message = String(e?.message ?? '');
  const known = /self[- ]signed certificate|unable to verify the first certificate|certificate has expired/i.exec(message);
  return known?.[0];
}

function combinedSignal(options: SendOptions): { signal: AbortSignal; interrupted: () => boolean } {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  return { signal, interrupted: () => options.signal?.aborted === true };
}

const interruptedError = () => new DeliveryError('Interrupted: the platform stopped while sending', false, undefined, true);
const couldNotConnect = (where: string) => new DeliveryError(`Could not connect to ${where}`, false);

/** Rejects when the signal aborts first (a name lookup has no timeout of its own). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** '535' or '535 5.7.8': the reply code and enhanced status code, without the server's text. */
function smtpReplyCode(error: ErrorLike): string | undefined {
  if (typeof error.responseCode !== 'number') return undefined;
  const enhanced =
    typeof error.response === 'string' ? /^\d{3}[ -](\d\.\d{1,3}\.\d{1,3})\b/.exec(error.response)?.[1] : undefined;
  return enhanced ? `${error.responseCode} ${enhanced}` : String(error.responseCode);
}

/** What the server refused, from the command it answered. */
function refusedStep(error: ErrorLike): string {
  const command = typeof error.command === 'string' ? error.command.toUpperCase() : '';
  if (error.code === 'EAUTH' || command.startsWith('AUTH')) return 'the login';
  if (command === 'STARTTLS' || error.code === 'ETLS') return 'STARTTLS';
  if (command.startsWith('MAIL')) return 'the sender address';
  if (command.startsWith('RCPT')) return 'the recipients';
  if (command === 'DATA' || error.code === 'EMESSAGE' || error.code === 'EENVELOPE') return 'the message';
  return 'the connection';
}

const SMTP_HINTS: Record<number, string> = {
  530: ': it requires a login (set a username and password)',
  535: ': check the username and password',
};

/** Network-level failures: all of them read the same (see the file comment). */
const NETWORK_CODES = new Set([
  'ECONNECTION',
  'ESOCKET',
  'EDNS',
  'ETIMEDOUT',
  'EABORT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** Sends one message through the provider's SMTP server; resolves only when the server accepted it. */
export async function sendEmail(config: EmailConfig, message: OutgoingMessage, options: SendOptions): Promise<SendResult> {
  const where = `${config.smtp_host}:${config.smtp_port}`;
  const { signal, interrupted } = combinedSignal(options);
  let checked: ResolvedAddress[];
  try {
    checked = await untilAborted(resolveOutbound(config.smtp_host, options.policy), signal);
  } catch (error) {
    const refusal = outboundRefusal(error);
    if (refusal) throw new DeliveryError(refusal.message, true);
    throw interrupted() ? interruptedError() : couldNotConnect(where);
  }
  // A name may have several addresses (IPv6 and IPv4): the next is tried only when one could not be connected to at all.
  for (const [index, { address }] of checked.entries()) {
    try {
      return await sendEmailTo(address, config, message, signal, options.timeoutMs);
    } catch (error) {
      const lastAddress = index === checked.length - 1;
      if (lastAddress || interrupted() || !failedToConnect(error)) throw emailError(error, where, interrupted());
    }
  }
  throw couldNotConnect(where);
}

/** A failure before the server said anything: no message can have gone out. */
function failedToConnect(error: unknown): boolean {
  const e = error as ErrorLike;
  return e?.command === 'CONN' && (e.code === 'ESOCKET' || e.code === 'ECONNECTION' || e.code === 'ETIMEDOUT');
}

/** One delivery attempt to one checked address. */
async function sendEmailTo(
  address: string,
  config: EmailConfig,
  message: OutgoingMessage,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<SendResult> {
  const where = `${config.smtp_host}:${config.smtp_port}`;
  const stepTimeout = Math.max(1_000, Math.min(timeoutMs, 15_000));
  const byName = !net.isIP(config.smtp_host);
  // Loaded on the first email: a platform without an email channel never pays for it (about 15 MB).
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    // The checked address, not the name: a second lookup could answer something else (DNS rebinding).
    host: address,
    port: config.smtp_port,
    // Tls: implicit TLS from the first byte. Starttls: plain, then upgraded (required or when offered). None: never TLS.
    secure: config.tls_mode === 'Tls',
    ignoreTLS: config.tls_mode === 'None',
    requireTLS: config.tls_mode === 'Starttls' && config.starttls_required,
    auth: config.username ? { user: config.username, pass: config.password } : undefined,
    tls: {
      rejectUnauthorized: !config.accept_invalid_certs,
      // SNI and the certificate check use the name the user gave, though the socket goes to its checked address.
      ...(byName ? { servername: config.smtp_host } : {}),
    },
    connectionTimeout: stepTimeout,
    greetingTimeout: stepTimeout,
    socketTimeout: stepTimeout,
    allowInternalNetworkInterfaces: true,
  });
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
      throw new DeliveryError(`The SMTP server at ${where} accepted no recipient`, true);
    }
    if (rejected.length > 0) {
      const codes = [...new Set((info.rejectedErrors ?? []).map((e) => smtpReplyCode(e as ErrorLike)).filter(Boolean))];
      return {
        warning: `Accepted for ${info.accepted.length} recipient(s); refused ${rejected.join(', ')}${codes.length > 0 ? ` (reply ${codes.join(', ')})` : ''}`,
      };
    }
    return { warning: null };
  } finally {
    transport.close();
  }
}

function emailError(error: unknown, where: string, interrupted: boolean): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (interrupted) return interruptedError();
  const e = (error ?? {}) as ErrorLike;
  const certificate = certificateProblem(error);
  if (certificate) {
    return new DeliveryError(
      `The TLS certificate of the SMTP server at ${where} is not trusted (${certificate}). ` +
        'Use a trusted certificate, or turn on "Accept invalid certificates" if you trust this server.',
      true,
    );
  }
  const reply = smtpReplyCode(e);
  if (reply !== undefined) {
    // The server answered: its code says why; 5xx is final, 4xx means try later.
    const code = e.responseCode as number;
    return new DeliveryError(
      `The SMTP server at ${where} refused ${refusedStep(e)} (reply ${reply})${SMTP_HINTS[code] ?? ''}`,
      code >= 500,
    );
  }
  const code = typeof e.code === 'string' ? e.code : '';
  if (NETWORK_CODES.has(code) || chain(error).some((link) => NETWORK_CODES.has(String(link.code)))) return couldNotConnect(where);
  switch (code) {
    case 'ETLS':
      return new DeliveryError(
        `TLS with the SMTP server at ${where} failed: check the TLS mode (Tls for port 465, Starttls for 587)`,
        true,
      );
    case 'EAUTH':
      return new DeliveryError(`The SMTP server at ${where} refused the login`, true);
    case 'EENVELOPE':
    case 'EMESSAGE':
    case 'ECONFIG':
      return new DeliveryError(`The SMTP server at ${where} refused the message`, true);
    default:
      return new DeliveryError(`Could not deliver through the SMTP server at ${where}${code ? ` (${code})` : ''}`, false);
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const asSeconds = Number(header);
  if (Number.isFinite(asSeconds) && asSeconds >= 0) return asSeconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** host:port of a URL, never its path (the path of a webhook is its secret). */
function hostAndPort(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

/** Posts one message to a Slack incoming webhook; resolves only on a 2xx answer. */
export async function sendSlack(config: SlackConfig, message: OutgoingMessage, options: SendOptions): Promise<SendResult> {
  const where = hostAndPort(new URL(config.webhook_url));
  const { signal, interrupted } = combinedSignal(options);
  const payload = {
    text: message.slack.text,
    ...(config.channel ? { channel: config.channel } : {}),
    blocks: message.slack.blocks,
  };
  let status: number;
  let retryAfter: string | null;
  try {
    const response = await outboundFetch(
      config.webhook_url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Launchbay' },
        body: JSON.stringify(payload),
        signal,
      },
      options.policy,
    );
    status = response.status;
    retryAfter = response.headers.get('retry-after');
    // The body is never read: only the status is reported (see the file comment).
    await response.body?.cancel().catch(() => undefined);
  } catch (error) {
    if (interrupted()) throw interruptedError();
    const refusal = outboundRefusal(error);
    if (refusal) throw new DeliveryError(refusal.message, true);
    throw couldNotConnect(where);
  }
  if (status >= 200 && status < 300) return { warning: null };
  if (status >= 300 && status < 400) {
    throw new DeliveryError(`The webhook at ${where} answered HTTP ${status} (a redirect): check the webhook URL`, true);
  }
  if (status === 429) throw new DeliveryError(`${where} answered HTTP 429`, false, retryAfterMs(retryAfter));
  throw new DeliveryError(`${where} answered HTTP ${status}`, status < 500);
}
