import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { makeCertificate } from './certificate';
import { waitUntil } from './wait';

/**
 * A real SMTP server (the smtp-server package) on 127.0.0.1, in one of three shapes: plain (no
 * TLS offered), STARTTLS (plain, upgraded on request) or implicit TLS, with optional
 * authentication. It records every message it accepts, parsed enough for assertions.
 */

export type TlsCertificate = { key: string; cert: string };

/** A fresh self-signed certificate for localhost / 127.0.0.1 (its files are removed once read). */
export function selfSignedCertificate(): TlsCertificate {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-smtp-cert-'));
  try {
    const { key, cert } = makeCertificate(['localhost', '127.0.0.1'], { dir });
    return { key, cert };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export type ReceivedMail = {
  envelopeFrom: string;
  envelopeTo: string[];
  /** The authenticated user, when the client logged in. */
  user: string | undefined;
  /** Whether the session was encrypted when the message was sent. */
  secure: boolean;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  raw: string;
};

export type SmtpMode = 'plain' | 'starttls' | 'tls';

export type SmtpServerOptions = {
  mode: SmtpMode;
  /** When set, the server requires this login; 'any' accepts every login (and none). */
  auth?: { user: string; pass: string } | 'any';
  certificate?: TlsCertificate;
  /** Refuse the n-th message (0-based) with an SMTP reply, e.g. { code: 550, message: 'Mailbox unavailable' }. */
  refuse?: (index: number) => { code: number; message: string } | undefined;
};

export type TestSmtpServer = {
  port: number;
  messages: ReceivedMail[];
  /** Every login the server accepted, with the password the client sent. */
  logins: { username: string; password: string }[];
  /** Messages the server refused, in order. */
  refused: number;
  /** Resolves with the first message (now or later) that matches. */
  waitForMessage(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Stops listening: connections to the port are refused (a server that is down). Closing again does nothing. */
  close(): Promise<void>;
};

// --- a small MIME reader: enough for what nodemailer writes (multipart/alternative, QP, base64) ---

function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_all, _charset: string, encoding: string, text: string) => {
    if (encoding.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
    const bytes = text
      .replace(/_/g, ' ')
      .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  });
}

function parseHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, decodeWords(line.slice(colon + 1).trim()));
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '').toLowerCase()) {
    case 'quoted-printable': {
      const bytes = body
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
      return Buffer.from(bytes, 'latin1').toString('utf8');
    }
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

function splitEntity(raw: string): { headers: Map<string, string>; body: string } {
  const match = /\r?\n\r?\n/.exec(raw);
  if (!match) return { headers: parseHeaders(raw), body: '' };
  return { headers: parseHeaders(raw.slice(0, match.index)), body: raw.slice(match.index + match[0].length) };
}

function collectParts(raw: string, out: { text: string; html: string }) {
  const { headers, body } = splitEntity(raw);
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    const sections = body.split(`--${boundary}`).slice(1);
    for (const section of sections) {
      if (section.startsWith('--')) break;
      collectParts(section.replace(/^\r?\n/, ''), out);
    }
    return;
  }
  const decoded = decodeBody(body, headers.get('content-transfer-encoding')).replace(/\r\n/g, '\n').trimEnd();
  if (type.toLowerCase().startsWith('text/html')) out.html ||= decoded;
  else if (type.toLowerCase().startsWith('text/plain')) out.text ||= decoded;
}

export function parseMail(raw: string) {
  const { headers } = splitEntity(raw);
  const parts = { text: '', html: '' };
  collectParts(raw, parts);
  return { from: headers.get('from') ?? '', to: headers.get('to') ?? '', subject: headers.get('subject') ?? '', ...parts };
}

export async function startSmtpServer(options: SmtpServerOptions): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const logins: { username: string; password: string }[] = [];
  const state = { refused: 0, seen: 0 };
  const tls = options.mode === 'plain' ? {} : (options.certificate ?? selfSignedCertificate());
  const serverOptions: SMTPServerOptions = {
    ...tls,
    secure: options.mode === 'tls',
    disabledCommands: options.mode === 'plain' ? ['STARTTLS'] : [],
    authOptional: !options.auth || options.auth === 'any',
    allowInsecureAuth: true,
    disableReverseLookup: true,
    logger: false,
    onAuth(auth, _session, callback) {
      const accepted =
        options.auth === 'any' || (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass);
      if (!accepted) return callback(new Error('Invalid username or password'));
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      return callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const index = state.seen++;
        const refusal = options.refuse?.(index);
        if (refusal) {
          state.refused++;
          const error = new Error(refusal.message) as Error & { responseCode: number };
          error.responseCode = refusal.code;
          return callback(error);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const mailFrom = session.envelope.mailFrom;
        messages.push({
          envelopeFrom: mailFrom ? mailFrom.address : '',
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          secure: session.secure,
          raw,
          ...parseMail(raw),
        });
        callback();
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  server.on('error', () => undefined); // a client dropping the connection mid-handshake is fine here
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    port,
    messages,
    logins,
    get refused() {
      return state.refused;
    },
    waitForMessage: (match, timeoutMs = 15_000) => waitUntil(() => messages.find(match), 'a matching mail', timeoutMs),
    close() {
      closed ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return closed;
    },
  };
}
