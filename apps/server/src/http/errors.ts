import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { HttpError, validationError } from '../lib/errors';
import type { App } from '../lib/http';

/**
 * One error format for every answer the platform gives: `{ detail, errors? }`, in the platform's
 * own words. Framework messages (Fastify's codes, the JSON parser's, PostgreSQL's) stay in the
 * server log; they describe our internals, not what the caller should change.
 */

export const BODY_LIMIT_BYTES = 1024 * 1024;

export type ErrorBody = { detail: string; errors?: { path: string; message: string }[] } & Record<string, unknown>;

export function sendError(reply: FastifyReply, status: number, body: ErrorBody) {
  return reply.code(status).type('application/json').send(body);
}

/** The PostgreSQL error (SQLSTATE code) behind an error, whether drizzle wrapped it or not. */
function databaseErrorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 3; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

const FRAMEWORK_DETAILS: Record<string, { status: number; detail: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, detail: 'Malformed JSON body: the request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, detail: 'Malformed JSON body: the body is empty' },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    detail: `Request body is too large: the limit is ${BODY_LIMIT_BYTES / 1024} KB`,
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, detail: 'Unsupported content type: send application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, detail: 'The Content-Length header does not match the body' },
  FST_ERR_BAD_URL: { status: 400, detail: 'Malformed URL: the path holds an invalid percent-encoding' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, detail: 'A path segment is too long' },
};

/** For Fastify's `frameworkErrors` option: errors raised before routing (a bad URL, a too-long parameter). */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const known = FRAMEWORK_DETAILS[error.code];
  return sendError(reply, known?.status ?? 400, { detail: known?.detail ?? 'Bad request' });
}

/** For Fastify's `clientErrorHandler` option: requests Node's HTTP parser refused (bad header bytes, oversized headers). */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'The request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers are too large']
        : [400, 'Malformed HTTP request'];
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

export function registerErrorHandling(app: App) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = error.validationContext === 'body' ? '' : `${error.validationContext}.`;
      const errors = error.validation.map((issue) => ({
        path: `${where}${issue.instancePath.replace(/^\//, '').replace(/\//g, '.')}`.replace(/\.$/, '') || '(root)',
        message: issue.message ?? 'Invalid value',
      }));
      const refusal = validationError(errors);
      return sendError(reply, 400, { detail: refusal.detail, errors });
    }
    if (error instanceof HttpError) {
      if (error.headers) reply.headers(error.headers);
      return sendError(reply, error.statusCode, {
        detail: error.detail,
        ...(error.errors ? { errors: error.errors } : {}),
        ...error.extra,
      });
    }
    const known = FRAMEWORK_DETAILS[error.code];
    if (known) return sendError(reply, known.status, { detail: known.detail });
    const databaseCode = databaseErrorCode(error);
    if (databaseCode && (databaseCode.startsWith('22') || databaseCode === '54000')) {
      // A data exception (a number past the column's range, text the database cannot hold) or a
      // value too large to index: input the schemas let through, so a bad request, not a failure.
      request.log.warn({ err: error, url: request.url, method: request.method }, 'database refused a value');
      return sendError(reply, 400, { detail: 'Invalid value: a field holds a value too large, or text that cannot be stored' });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.info({ err: error, url: request.url }, 'request refused by the framework');
      return sendError(reply, error.statusCode, { detail: http.STATUS_CODES[error.statusCode] ?? 'Bad request' });
    }
    request.log.error({ err: error, url: request.url, method: request.method }, 'request failed');
    return sendError(reply, 500, { detail: 'Internal server error: the failure was logged on the server' });
  });
}
