import Anser from 'anser';
import type { CSSProperties } from 'react';

/**
 * ANSI SGR colours for log lines, parsed by anser into spans (never HTML: the text stays text).
 * The 16 terminal colours map to classes tuned for both themes (a terminal's "white" is
 * invisible on a light page, its "black" on a dark one); 256-colour and true-colour codes become
 * inline colours.
 */

export interface AnsiSegment {
  text: string;
  className: string;
  style: CSSProperties | undefined;
}

const FOREGROUND: Record<string, string> = {
  'ansi-black': 'text-neutral-900 dark:text-neutral-500',
  'ansi-red': 'text-red-600 dark:text-red-400',
  'ansi-green': 'text-green-700 dark:text-green-400',
  'ansi-yellow': 'text-amber-600 dark:text-yellow-300',
  'ansi-blue': 'text-blue-600 dark:text-blue-400',
  'ansi-magenta': 'text-fuchsia-600 dark:text-fuchsia-400',
  'ansi-cyan': 'text-cyan-700 dark:text-cyan-400',
  'ansi-white': 'text-neutral-500 dark:text-neutral-200',
  'ansi-bright-black': 'text-neutral-500 dark:text-neutral-400',
  'ansi-bright-red': 'text-red-500 dark:text-red-300',
  'ansi-bright-green': 'text-green-600 dark:text-green-300',
  'ansi-bright-yellow': 'text-amber-500 dark:text-yellow-200',
  'ansi-bright-blue': 'text-blue-500 dark:text-blue-300',
  'ansi-bright-magenta': 'text-fuchsia-500 dark:text-fuchsia-300',
  'ansi-bright-cyan': 'text-cyan-600 dark:text-cyan-300',
  'ansi-bright-white': 'text-neutral-400 dark:text-white',
};

const BACKGROUND: Record<string, string> = {
  'ansi-black': 'bg-neutral-900 text-neutral-100',
  'ansi-red': 'bg-red-500/20',
  'ansi-green': 'bg-green-500/20',
  'ansi-yellow': 'bg-yellow-500/25',
  'ansi-blue': 'bg-blue-500/20',
  'ansi-magenta': 'bg-fuchsia-500/20',
  'ansi-cyan': 'bg-cyan-500/20',
  'ansi-white': 'bg-neutral-200 text-neutral-900',
  'ansi-bright-black': 'bg-neutral-500/30',
  'ansi-bright-red': 'bg-red-400/25',
  'ansi-bright-green': 'bg-green-400/25',
  'ansi-bright-yellow': 'bg-yellow-400/30',
  'ansi-bright-blue': 'bg-blue-400/25',
  'ansi-bright-magenta': 'bg-fuchsia-400/25',
  'ansi-bright-cyan': 'bg-cyan-400/25',
  'ansi-bright-white': 'bg-neutral-100 text-neutral-900',
};

const DECORATION: Record<string, string> = {
  bold: 'font-bold',
  dim: 'opacity-60',
  italic: 'italic',
  underline: 'underline',
  strikethrough: 'line-through',
  hidden: 'invisible',
  blink: '',
  reverse: '',
};

const LEVELS = [0, 95, 135, 175, 215, 255];

/** The xterm 256-colour palette, for indexes 16-255 ('ansi-palette-N'). */
function paletteColor(index: number): string | undefined {
  if (index >= 16 && index <= 231) {
    const n = index - 16;
    return `rgb(${LEVELS[Math.floor(n / 36)]}, ${LEVELS[Math.floor(n / 6) % 6]}, ${LEVELS[n % 6]})`;
  }
  if (index >= 232 && index <= 255) {
    const level = 8 + (index - 232) * 10;
    return `rgb(${level}, ${level}, ${level})`;
  }
  return undefined;
}

function colorOf(name: string | null, truecolor: string | null): string | undefined {
  if (!name) return undefined;
  if (name === 'ansi-truecolor' && truecolor) return `rgb(${truecolor})`;
  const palette = /^ansi-palette-(\d+)$/.exec(name);
  return palette ? paletteColor(Number(palette[1])) : undefined;
}

// CSI sequences (colours, cursor moves, erase), OSC sequences (titles, hyperlinks) and lone escapes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ANSI_PATTERN = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/**
 * What a terminal would show of a line that redraws itself with carriage returns (progress bars):
 * the text after the last one.
 */
export function lastRedraw(line: string): string {
  const trimmed = line.endsWith('\r') ? line.replace(/\r+$/, '') : line;
  const cr = trimmed.lastIndexOf('\r');
  return cr < 0 ? trimmed : trimmed.slice(cr + 1);
}

/** The line as plain text: escapes removed, carriage-return redraws resolved. */
export function stripAnsi(line: string): string {
  return lastRedraw(line).replace(ANSI_PATTERN, '');
}

/** A line as styled segments whose texts, joined, equal stripAnsi(line). */
export function parseAnsi(line: string): AnsiSegment[] {
  const visible = lastRedraw(line);
  if (!visible.includes('\u001b')) return [{ text: visible, className: '', style: undefined }];
  const entries = Anser.ansiToJson(visible, { use_classes: true, remove_empty: true });
  const segments: AnsiSegment[] = [];
  for (const entry of entries) {
    // anser leaves the escapes it does not interpret (cursor moves, OSC) in the content.
    const text = entry.content.replace(ANSI_PATTERN, '');
    if (!text) continue;
    const classes: string[] = [];
    const style: CSSProperties = {};
    if (entry.fg) {
      const known = FOREGROUND[entry.fg];
      if (known) classes.push(known);
      else {
        const color = colorOf(entry.fg, entry.fg_truecolor);
        if (color) style.color = color;
      }
    }
    if (entry.bg) {
      const known = BACKGROUND[entry.bg];
      if (known) classes.push(known);
      else {
        const color = colorOf(entry.bg, entry.bg_truecolor);
        if (color) style.backgroundColor = color;
      }
    }
    for (const decoration of entry.decorations ?? []) {
      const cls = DECORATION[decoration];
      if (cls) classes.push(cls);
    }
    segments.push({
      text,
      className: classes.join(' '),
      style: style.color || style.backgroundColor ? style : undefined,
    });
  }
  return segments;
}
