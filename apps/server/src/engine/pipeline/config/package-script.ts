/**
 * A process whose command is `npm start` or `<pm> run <script>` would keep the package manager alive
 * as the app's parent for the app's whole life: about 90 MB and a second of start-up spent on a
 * process that only waits. Where the script has no pre/post hooks (the one thing the package
 * manager adds at run time), the process runs the script itself, with what the package manager
 * would have given it: `node_modules/.bin` on PATH and the `npm_*` variables apps read.
 * The plan keeps showing the command as the user wrote it.
 */
import type { PackageJson } from './package-manager';

const RUN = /^(npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?([\w:.@/-]+)$/;

const SHELL_BUILTINS = new Set([
  'cd',
  'export',
  'set',
  'exit',
  'exec',
  'eval',
  'true',
  'false',
  'test',
  'ulimit',
  'umask',
  'wait',
]);

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/** The script's own command line for a `<pm> run <script>` command, or the command as it is. */
export function directScriptCommand(command: string, pkg: PackageJson | null): string {
  const match = RUN.exec(command.trim());
  if (!match || !pkg?.scripts) return command;
  const [, manager, name] = match as unknown as [string, string, string];
  // Without `run`, only `start` is a script for every package manager (`npm test` is one too, but
  // `yarn install` is not): anything else stays with the package manager.
  if (!/\brun/.test(command) && name !== 'start') return command;
  const script = pkg.scripts[name];
  if (typeof script !== 'string' || script.trim() === '') return command;
  if (pkg.scripts[`pre${name}`] !== undefined || pkg.scripts[`post${name}`] !== undefined) return command;
  // A script that calls the package manager again gains nothing from being run directly.
  if (new RegExp(`(^|[;&|\\s])${manager}\\s`).test(script)) return command;
  const vars = [
    'PATH="$PWD/node_modules/.bin:$PATH"',
    `npm_lifecycle_event=${quote(name)}`,
    `npm_lifecycle_script=${quote(script)}`,
    ...(typeof pkg.name === 'string' ? [`npm_package_name=${quote(pkg.name)}`] : []),
    ...(typeof pkg.version === 'string' ? [`npm_package_version=${quote(pkg.version)}`] : []),
  ];
  // One simple command becomes the process itself (exec); anything with shell syntax runs as written.
  const words = script.trim().split(/[ \t]+/);
  const simple =
    /^[\w@%+=:,./-]+(?:[ \t]+[\w@%+=:,./-]+)*$/.test(script.trim()) &&
    /^[\w@./-]+$/.test(words[0] ?? '') &&
    !SHELL_BUILTINS.has(words[0] ?? '');
  return simple ? `export ${vars.join(' ')}; exec ${script.trim()}` : `export ${vars.join(' ')}; ${script}`;
}
