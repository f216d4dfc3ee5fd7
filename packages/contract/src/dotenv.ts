/**
 * The .env format, as dotenv reads it: `KEY=VALUE` lines, `#` comments (whole lines, or after an
 * unquoted value), an optional `export ` prefix, single quotes (taken literally), double quotes
 * (with \n, \r, \t, \" and \\ escapes, and values over several lines) and backticks. A later
 * line wins over an earlier one with the same key.
 */

export interface DotenvEntry {
  key: string;
  value: string;
  /** The 1-based line the entry starts on. */
  line: number;
}

export interface DotenvProblem {
  line: number;
  message: string;
}

export interface DotenvResult {
  entries: DotenvEntry[];
  problems: DotenvProblem[];
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

function unescapeDouble(text: string): string {
  return text.replace(/\\([nrt"\\])/g, (_, char: string) => ESCAPES[char] ?? char);
}

export function parseDotenv(text: string): DotenvResult {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const byKey = new Map<string, DotenvEntry>();
  const problems: DotenvProblem[] = [];

  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    const raw = lines[index] ?? '';
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;

    const body = trimmed.replace(/^export\s+/, '');
    const eq = body.indexOf('=');
    if (eq === -1) {
      problems.push({ line: lineNumber, message: `Line ${lineNumber} is not KEY=VALUE` });
      continue;
    }
    const key = body.slice(0, eq).trim();
    if (!KEY.test(key)) {
      problems.push({
        line: lineNumber,
        message: `Line ${lineNumber}: "${key || '(empty)'}" is not a valid key (letters, digits and underscores, not starting with a digit)`,
      });
      continue;
    }

    let rest = body.slice(eq + 1).trimStart();
    let value: string;
    const quote = rest[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      // Find the closing quote, possibly on a later line.
      let content = rest.slice(1);
      let end = findClosing(content, quote);
      let lastLine = index;
      while (end === -1 && lastLine + 1 < lines.length) {
        lastLine++;
        content += `\n${lines[lastLine] ?? ''}`;
        end = findClosing(content, quote);
      }
      if (end === -1) {
        problems.push({ line: lineNumber, message: `Line ${lineNumber}: the ${quote} quote of ${key} is never closed` });
        // The rest of the file belonged to the broken value: stop here rather than guess.
        break;
      }
      const inner = content.slice(0, end);
      value = quote === '"' ? unescapeDouble(inner) : inner;
      index = lastLine;
    } else {
      // Unquoted: an inline comment starts at ' #'.
      const comment = rest.search(/\s#/);
      if (comment !== -1) rest = rest.slice(0, comment);
      value = rest.trim();
    }
    byKey.delete(key);
    byKey.set(key, { key, value, line: lineNumber });
  }

  return { entries: [...byKey.values()], problems };
}

function findClosing(text: string, quote: string): number {
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\\' && quote === '"') {
      i++;
      continue;
    }
    if (char === quote) return i;
  }
  return -1;
}

/** One value as a .env line would hold it: bare when safe, else double-quoted with escapes. */
function quoteValue(value: string): string {
  if (value === '') return '';
  if (/^[A-Za-z0-9_./:@%+,-]+$/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
}

/** A .env file for the entries (sorted as given), that parseDotenv reads back to the same values. */
export function formatDotenv(entries: { key: string; value: string }[], header?: string): string {
  const lines = header ? header.split('\n').map((line) => `# ${line}`) : [];
  for (const entry of entries) lines.push(`${entry.key}=${quoteValue(entry.value)}`);
  return `${lines.join('\n')}\n`;
}
