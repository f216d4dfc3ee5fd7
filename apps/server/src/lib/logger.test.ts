import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger } from './logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('lazyChildLogger', () => {
  it('writes lines with the request bindings, making the pino child on the first line only', () => {
    const { logger, lines } = capture();
    let children = 0;
    const child = logger.child.bind(logger);
    logger.child = ((...args: Parameters<typeof child>) => {
      children++;
      return child(...args);
    }) as typeof logger.child;

    const requestLog = lazyChildLogger(logger, { reqId: 'req-7' }, {});
    expect(children).toBe(0);
    expect(requestLog.level).toBe('info');
    requestLog.debug('below the level');
    requestLog.warn({ status: 502 }, 'upstream failed');
    requestLog.error(new Error('boom'));
    expect(children).toBe(1);
    expect(lines).toMatchObject([
      { level: 40, reqId: 'req-7', status: 502, msg: 'upstream failed' },
      { level: 50, reqId: 'req-7', err: { message: 'boom' } },
    ]);
  });

  it('takes a level of its own, and its children keep the request bindings', () => {
    const { logger, lines } = capture();
    const requestLog = lazyChildLogger(logger, { reqId: 'req-8' }, { level: 'debug' });
    expect(requestLog.level).toBe('debug');
    requestLog.debug('seen at debug');
    requestLog.child({ step: 'build' }).info('nested');
    expect(lines).toMatchObject([
      { level: 20, reqId: 'req-8', msg: 'seen at debug' },
      { level: 30, reqId: 'req-8', step: 'build', msg: 'nested' },
    ]);
  });
});
