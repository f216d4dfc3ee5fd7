import { describe, expect, it } from 'vitest';
import { formatDotenv, parseDotenv } from './dotenv';

const values = (text: string) => Object.fromEntries(parseDotenv(text).entries.map((entry) => [entry.key, entry.value]));

describe('parseDotenv', () => {
  it('reads KEY=VALUE lines, skipping blank lines and comments', () => {
    const result = parseDotenv('# database\nDATABASE_URL=postgres://db/app\n\n  # indented comment\nPORT = 3000\n');
    expect(result.problems).toEqual([]);
    expect(result.entries).toEqual([
      { key: 'DATABASE_URL', value: 'postgres://db/app', line: 2 },
      { key: 'PORT', value: '3000', line: 5 },
    ]);
  });

  it('drops an export prefix and an inline comment after an unquoted value', () => {
    expect(values('export API_KEY=abc123 # the key\nexport   MODE=production\nHASH=a#b')).toEqual({
      API_KEY: 'abc123',
      MODE: 'production',
      HASH: 'a#b',
    });
  });

  it('keeps quoted values as written: single quotes literally, double quotes with escapes', () => {
    expect(
      values(`A="hello world" # comment
B='no \\n escape # here'
C="line1\\nline2 \\"quoted\\""
D=""
E=
F=\`back tick\``),
    ).toEqual({
      A: 'hello world',
      B: 'no \\n escape # here',
      C: 'line1\nline2 "quoted"',
      D: '',
      E: '',
      F: 'back tick',
    });
  });

  it('reads a double-quoted value over several lines', () => {
    const result = parseDotenv('KEY="-----BEGIN KEY-----\nabc\n-----END KEY-----"\nNEXT=1');
    expect(result.problems).toEqual([]);
    expect(values('KEY="-----BEGIN KEY-----\nabc\n-----END KEY-----"\nNEXT=1')).toEqual({
      KEY: '-----BEGIN KEY-----\nabc\n-----END KEY-----',
      NEXT: '1',
    });
    expect(result.entries[1]).toMatchObject({ key: 'NEXT', line: 4 });
  });

  it('lets a later line win over an earlier one with the same key', () => {
    const result = parseDotenv('A=1\nB=2\nA=3');
    expect(result.entries.map((entry) => `${entry.key}=${entry.value}`)).toEqual(['B=2', 'A=3']);
  });

  it('reports lines that are not KEY=VALUE, invalid keys and unclosed quotes', () => {
    const result = parseDotenv('JUST_A_WORD\n1BAD=x\nGOOD=yes\nBROKEN="never closed\nLATER=1');
    expect(values('GOOD=yes')).toEqual({ GOOD: 'yes' });
    expect(result.entries.map((entry) => entry.key)).toEqual(['GOOD']);
    expect(result.problems.map((problem) => problem.line)).toEqual([1, 2, 4]);
    expect(result.problems[0]?.message).toBe('Line 1 is not KEY=VALUE');
    expect(result.problems[1]?.message).toContain('"1BAD" is not a valid key');
    expect(result.problems[2]?.message).toContain('never closed');
  });

  it('handles Windows line endings and a byte order mark', () => {
    expect(values('\uFEFFA=1\r\nB="two"\r\n')).toEqual({ A: '1', B: 'two' });
  });
});

describe('formatDotenv', () => {
  it('writes bare values when safe and quotes the rest, so parseDotenv reads the same values back', () => {
    const entries = [
      { key: 'PLAIN', value: 'postgres://user@db:5432/app' },
      { key: 'SPACES', value: 'hello world' },
      { key: 'QUOTES', value: 'say "hi" \\ bye' },
      { key: 'MULTI', value: 'a\nb' },
      { key: 'HASH', value: 'x #y' },
      { key: 'EMPTY', value: '' },
    ];
    const text = formatDotenv(entries, 'Production of acme');
    expect(text.split('\n')[0]).toBe('# Production of acme');
    expect(text).toContain('PLAIN=postgres://user@db:5432/app\n');
    expect(text).toContain('SPACES="hello world"\n');
    expect(values(text)).toEqual(Object.fromEntries(entries.map((entry) => [entry.key, entry.value])));
  });
});
