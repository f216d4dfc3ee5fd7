import { describe, expect, it } from 'vitest';
import { parseProcfile } from './procfile';

describe('parseProcfile', () => {
  it('reads `type: command` lines, skipping comments and blank lines', () => {
    const text =
      '# Heroku style\r\nweb: bundle exec puma -C config/puma.rb\r\n\r\n  worker:node worker.js --queue=a:b  \r\nrelease_2: ./release.sh\n';
    expect(parseProcfile(text)).toEqual({
      processes: [
        { type: 'web', command: 'bundle exec puma -C config/puma.rb' },
        { type: 'worker', command: 'node worker.js --queue=a:b' },
        { type: 'release_2', command: './release.sh' },
      ],
      errors: [],
    });
  });

  it('reports lines of another shape, empty commands and repeated types with their line', () => {
    expect(parseProcfile('web node a.js\nworker:\nweb: a\nweb: b\n-x: c\n')).toEqual({
      processes: [{ type: 'web', command: 'a' }],
      errors: [
        { path: 'Procfile:1', message: 'Expected `type: command`' },
        { path: 'Procfile:2', message: 'The process type "worker" has no command' },
        { path: 'Procfile:4', message: 'The process type "web" is declared twice' },
        { path: 'Procfile:5', message: 'Invalid process type "-x": use letters, digits, - or _' },
      ],
    });
  });
});
