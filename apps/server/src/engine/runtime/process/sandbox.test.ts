import { describe, expect, it } from 'vitest';
import { execForm, shellQuote } from '../../../lib/shell';
import { isInside, sandboxArgv } from './sandbox';

describe('execForm', () => {
  it('lets the shell become a simple command, and leaves shell syntax alone', () => {
    expect(execForm('node server.js')).toBe('exec node server.js');
    expect(execForm('  npm start ')).toBe('exec npm start');
    expect(execForm('node dist/index.js --port=3000')).toBe('exec node dist/index.js --port=3000');
    for (const command of [
      'npm run migrate && node server.js',
      'NODE_ENV=production node server.js',
      'node -e "console.log(1)"',
      'cd app; node server.js',
      'node server.js | tee out.log',
      'echo $PORT',
      'exec node server.js',
      'cd dist',
    ]) {
      expect(execForm(command)).toBe(command);
    }
  });
});

describe('sandboxArgv', () => {
  it('hides the data folder, then binds the app folder back with passable parents, and runs without --die-with-parent', () => {
    const argv = sandboxArgv(
      { kind: 'bubblewrap', bwrap: '/usr/bin/bwrap', setpriv: '/usr/bin/setpriv', runAs: { uid: 65534, gid: 65534 } },
      {
        appDir: '/srv/launchbay/apps/7/current',
        dataDir: '/srv/launchbay',
        stateDir: '/srv/launchbay/runtime',
        command: 'node server.js',
      },
    );
    const line = argv.join(' ');
    expect(line).toContain(
      '--tmpfs /srv/launchbay --perms 0755 --dir /srv/launchbay/apps --perms 0755 --dir /srv/launchbay/apps/7 --bind /srv/launchbay/apps/7/current /srv/launchbay/apps/7/current',
    );
    expect(line.indexOf('--tmpfs /srv/launchbay ')).toBeLessThan(line.indexOf('--bind '));
    expect(argv).toContain('--unshare-pid');
    expect(argv).toContain('--new-session');
    expect(argv).toContain('--share-net');
    expect(argv).not.toContain('--die-with-parent');
    expect(argv.slice(-3)).toEqual(['/bin/sh', '-c', "cd '/srv/launchbay/apps/7/current' || exit 126\nexec node server.js"]);
  });

  it('hides a state folder that lives outside the data folder too', () => {
    const argv = sandboxArgv(
      { kind: 'bubblewrap', bwrap: '/usr/bin/bwrap', setpriv: null, runAs: null },
      { appDir: '/apps/a', dataDir: '/var/lib/launchbay', stateDir: '/var/run/launchbay', command: 'npm start' },
    );
    expect(argv.join(' ')).toContain('--tmpfs /var/lib/launchbay --tmpfs /var/run/launchbay --bind /apps/a /apps/a');
  });
});

describe('helpers', () => {
  it('quotes for the shell and knows what is inside what', () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(isInside('/a/b/c', '/a/b')).toBe(true);
    expect(isInside('/a/b', '/a/b')).toBe(true);
    expect(isInside('/a/bc', '/a/b')).toBe(false);
    expect(isInside('/a', '/a/b')).toBe(false);
  });
});
