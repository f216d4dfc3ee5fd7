import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitUntil } from '@launchbay/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { CUT_MARK, LogTail } from './log-tail';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-log-tail-'));
let count = 0;

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function tail(options: { offset?: number; maxLineBytes?: number; maxFileBytes?: number; file?: string } = {}) {
  const file = options.file ?? path.join(dir, `log-${count++}.log`);
  if (!fs.existsSync(file)) fs.writeFileSync(file, '');
  const lines: { line: string; at: Date }[] = [];
  const follower = new LogTail({
    file,
    offset: options.offset ?? 0,
    maxLineBytes: options.maxLineBytes,
    maxFileBytes: options.maxFileBytes,
    onLine: (line, at) => lines.push({ line, at }),
  });
  return { file, lines, follower, text: () => lines.map((entry) => entry.line) };
}

describe('LogTail', () => {
  it('emits complete lines only, keeps a partial line until it ends, and follows appends by itself', async () => {
    const { file, follower, text, lines } = tail();
    fs.appendFileSync(file, 'one\ntwo\r\nthr');
    follower.start();
    expect(text()).toEqual(['one', 'two']);
    expect(follower.offset).toBe('one\ntwo\r\n'.length);
    const fd = fs.openSync(file, 'a');
    fs.writeSync(fd, 'ee\n\nfour\n');
    await waitUntil(() => text().length === 5, 'the appended lines (fs.watch)');
    expect(text()).toEqual(['one', 'two', 'three', '', 'four']);
    expect(lines.every((entry) => entry.at instanceof Date)).toBe(true);
    fs.writeSync(fd, 'no newline yet');
    fs.closeSync(fd);
    follower.poll();
    expect(text()).toHaveLength(5);
    follower.flush();
    expect(text().at(-1)).toBe('no newline yet');
    follower.close();
  });

  it('follows a file that did not exist when it started, by fs.watch once one read found it', async () => {
    const file = path.join(dir, `late-${count++}.log`);
    const lines: string[] = [];
    const follower = new LogTail({ file, offset: 0, onLine: (line) => lines.push(line) });
    follower.start();
    fs.writeFileSync(file, 'first\n');
    follower.poll(); // the driver's safety-net poll finds the file and starts watching it
    expect(lines).toEqual(['first']);
    fs.appendFileSync(file, 'second\n');
    // No poll from here on: only the watch can deliver this line.
    await waitUntil(() => lines.length === 2, 'the line appended after the file appeared (fs.watch)', 2000);
    expect(lines).toEqual(['first', 'second']);
    follower.close();
  });

  it('carries on from a saved offset without repeating lines, and reads a partial line again', () => {
    const first = tail();
    fs.appendFileSync(first.file, 'a\nb\npart');
    first.follower.poll();
    const saved = first.follower.offset;
    first.follower.close();
    expect(first.text()).toEqual(['a', 'b']);
    fs.appendFileSync(first.file, 'ial\nc\n');
    const second = tail({ file: first.file, offset: saved });
    second.follower.poll();
    expect(second.text()).toEqual(['partial', 'c']);
    second.follower.close();
  });

  it('cuts long lines and drops the rest of them', () => {
    const { file, follower, text } = tail({ maxLineBytes: 10 });
    fs.appendFileSync(file, `short\n${'x'.repeat(25)}\nafter\n`);
    follower.poll();
    expect(text()).toEqual(['short', `${'x'.repeat(10)}${CUT_MARK}`, 'after']);
    // A line longer than the limit that has not ended yet is cut as it comes.
    fs.appendFileSync(file, 'y'.repeat(30));
    follower.poll();
    fs.appendFileSync(file, 'yyy\nnext\n');
    follower.poll();
    expect(text().slice(3)).toEqual([`${'y'.repeat(10)}${CUT_MARK}`, 'next']);
    follower.close();
  });

  it('decodes UTF-8 split across reads', () => {
    const { file, follower, text } = tail();
    const bytes = Buffer.from('héllo wörld\n', 'utf8');
    fs.appendFileSync(file, bytes.subarray(0, 2));
    follower.poll();
    fs.appendFileSync(file, bytes.subarray(2));
    follower.poll();
    expect(text()).toEqual(['héllo wörld']);
    follower.close();
  });

  it('starts over when the file is emptied, and keeps a full file as FILE.1', () => {
    const { file, follower, text } = tail({ maxFileBytes: 20 });
    fs.appendFileSync(file, 'first line\n');
    follower.poll();
    fs.truncateSync(file, 0);
    fs.appendFileSync(file, 'again\n');
    follower.poll();
    expect(text()).toEqual(['first line', 'again']);
    fs.appendFileSync(file, 'a longer line\n'); // past 20 bytes: kept aside, file emptied
    follower.poll();
    expect(fs.readFileSync(`${file}.1`, 'utf8')).toBe('again\na longer line\n');
    expect(fs.statSync(file).size).toBe(0);
    expect(follower.offset).toBe(0);
    fs.appendFileSync(file, 'fresh\n');
    follower.poll();
    expect(text()).toEqual(['first line', 'again', 'a longer line', 'fresh']);
    follower.close();
  });
});
