/**
 * A Procfile: one `type: command` line per process type (`web` gets the traffic, the others run
 * beside it); `#` comments and blank lines are skipped. A line of another shape is an error rather
 * than silently ignored, so that a typo does not drop a process.
 */
import type { FieldError } from '../../../lib/errors';
import type { ProcessSpec } from '../../runtime/driver';
import { PROCESS_TYPE } from './launchbay-json';

export const PROCFILE = 'Procfile';

export function parseProcfile(text: string): { processes: ProcessSpec[]; errors: FieldError[] } {
  const processes: ProcessSpec[] = [];
  const errors: FieldError[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const path = `${PROCFILE}:${index + 1}`;
    const match = /^([^:\s]+)\s*:\s*(.*)$/.exec(line);
    if (!match) {
      errors.push({ path, message: 'Expected `type: command`' });
      return;
    }
    const [, type = '', command = ''] = match;
    if (!PROCESS_TYPE.test(type)) {
      errors.push({ path, message: `Invalid process type "${type}": use letters, digits, - or _` });
    } else if (command === '') {
      errors.push({ path, message: `The process type "${type}" has no command` });
    } else if (processes.some((p) => p.type === type)) {
      errors.push({ path, message: `The process type "${type}" is declared twice` });
    } else {
      processes.push({ type, command });
    }
  });
  return { processes, errors };
}
