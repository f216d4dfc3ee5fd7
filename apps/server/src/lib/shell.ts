/** Shell words for the command lines the engine builds (`sh -c` everywhere: dash on Debian). */

/** A word the shell takes literally. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const SHELL_WORDS = new Set([
  '.',
  ':',
  'cd',
  'case',
  'eval',
  'exec',
  'exit',
  'export',
  'for',
  'if',
  'set',
  'source',
  'ulimit',
  'umask',
  'until',
  'while',
  '!',
  '{',
]);

/**
 * A simple command (words only, no shell syntax) gets `exec` in front, so the shell becomes the
 * app instead of waiting for it: one process less per app (dash does not do it by itself).
 */
export function execForm(command: string): string {
  const trimmed = command.trim();
  if (!/^[\w@%+=:,./-]+(?:[ \t]+[\w@%+=:,./-]+)*$/.test(trimmed)) return command;
  const first = trimmed.split(/[ \t]/)[0] ?? '';
  if (first.includes('=') || SHELL_WORDS.has(first)) return command;
  return `exec ${trimmed}`;
}
