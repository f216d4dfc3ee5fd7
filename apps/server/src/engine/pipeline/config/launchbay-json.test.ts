import { describe, expect, it } from 'vitest';
import { launchbayJsonSchema, parseLaunchbayJson } from './launchbay-json';

describe('parseLaunchbayJson', () => {
  it('accepts every field, and an empty object', () => {
    const config = {
      $schema: './launchbay.schema.json',
      installCommand: null,
      buildCommand: 'npm run build',
      startCommand: 'node server.js',
      outputDirectory: 'dist',
      port: 3000,
      healthCheckPath: '/health?full=1',
      processes: { worker: 'node worker.js', 'queue-2': 'node q.js' },
      requiredEnv: ['DATABASE_URL'],
      crons: [
        { path: '/cron', schedule: '*/5 * * * *' },
        { path: '/daily', schedule: '@daily' },
      ],
    };
    expect(parseLaunchbayJson(JSON.stringify(config))).toEqual({ ok: true, value: config });
    expect(parseLaunchbayJson('\uFEFF{}')).toEqual({ ok: true, value: {} });
  });

  it('names each error by its JSON path', () => {
    expect(parseLaunchbayJson(JSON.stringify({ processes: { web: 1 } }))).toEqual({
      ok: false,
      errors: [{ path: 'processes.web', message: 'Expected string' }],
    });
    expect(parseLaunchbayJson(JSON.stringify({ port: 80.5, startCommand: '  ', crons: {} }))).toEqual({
      ok: false,
      errors: [
        { path: 'startCommand', message: 'Must not be empty' },
        { path: 'port', message: 'Expected an integer' },
        { path: 'crons', message: 'Expected array' },
      ],
    });
    expect(parseLaunchbayJson(JSON.stringify({ outputDirectory: '../outside' })).ok).toBe(false);
    expect(parseLaunchbayJson(JSON.stringify({ outputDirectory: '/etc' })).ok).toBe(false);
  });

  it('refuses startCommand together with processes.web, and a document that is no object', () => {
    expect(parseLaunchbayJson(JSON.stringify({ startCommand: 'a', processes: { web: 'b' } }))).toEqual({
      ok: false,
      errors: [{ path: 'startCommand', message: 'Set either startCommand or processes.web, not both' }],
    });
    expect(parseLaunchbayJson('[]')).toEqual({ ok: false, errors: [{ path: '(root)', message: 'Expected object' }] });
    expect(parseLaunchbayJson('')).toEqual({
      ok: false,
      errors: [{ path: '(root)', message: 'Invalid JSON: Unexpected end of JSON input' }],
    });
  });
});

describe('launchbayJsonSchema', () => {
  it('is a draft 2020-12 JSON Schema of every field, closed to unknown ones', () => {
    const schema = launchbayJsonSchema();
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'launchbay.json',
      type: 'object',
      additionalProperties: false,
      properties: {
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        processes: { type: 'object', additionalProperties: { type: 'string' } },
        requiredEnv: { type: 'array', items: { type: 'string' } },
        crons: {
          type: 'array',
          items: { type: 'object', required: ['path', 'schedule'], additionalProperties: false },
        },
      },
    });
    expect(Object.keys(schema.properties as object)).toEqual([
      '$schema',
      'installCommand',
      'buildCommand',
      'startCommand',
      'outputDirectory',
      'port',
      'healthCheckPath',
      'processes',
      'requiredEnv',
      'crons',
    ]);
    expect(schema).not.toHaveProperty('required');
  });
});
