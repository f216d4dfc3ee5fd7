import { findUnsafeText, UNSAFE_TEXT_MESSAGE } from '@launchbay/contract';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { badRequest } from '../lib/errors';
import type { App } from '../lib/http';

/** How requests are read: zod schemas for every route, JSON bodies, and text the database can hold. */
export function registerInputHandling(app: App) {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // An empty body with a JSON content type is "no body" (zod then says what is missing), not a crash.
  const defaultJsonParser = app.getDefaultJsonParser('error', 'ignore');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    defaultJsonParser(request, String(body), done);
  });

  // Before any schema: text that PostgreSQL or jsonb cannot hold is refused for every route at once.
  app.addHook('preValidation', (request, _reply, done) => {
    for (const [where, value] of [
      ['', request.body],
      ['query.', request.query],
      ['params.', request.params],
    ] as const) {
      const found = findUnsafeText(value);
      if (found) {
        const path = `${where}${found.join('.')}`.replace(/\.$/, '') || '(root)';
        return done(badRequest(`${path}: ${UNSAFE_TEXT_MESSAGE}`, [{ path, message: UNSAFE_TEXT_MESSAGE }]));
      }
    }
    done();
  });
}
