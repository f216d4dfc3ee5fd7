import { act, fireEvent, screen, within } from '@testing-library/react';
import type { ReactElement, Ref } from 'react';
import { useImperativeHandle } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/render';
import { parseAnsi, stripAnsi } from './ansi';
import { ConnectionStatus, findMatches, type LogLine, LogViewer, logText } from './log-viewer';

/**
 * happy-dom has no layout, so virtua (which renders what fits the measured viewport) would render
 * nothing: here every line is rendered. The real virtualisation runs in Chromium (e2e).
 */
vi.mock('virtua', () => ({
  Virtualizer: ({
    data,
    children,
    ref,
  }: {
    data: unknown[];
    children: (item: unknown, index: number) => ReactElement;
    ref?: Ref<{ scrollToIndex: () => void }>;
  }) => {
    useImperativeHandle(ref, () => ({ scrollToIndex: () => undefined }));
    return <>{data.map((item, index) => children(item, index))}</>;
  },
}));

let nextId = 1;
function line(text: string, stream: LogLine['stream'] = 'build', process: string | null = null): LogLine {
  const id = nextId++;
  return { id, at: `2026-01-02T03:04:${String(id % 60).padStart(2, '0')}.000Z`, stream, process, line: text };
}

/** happy-dom has no layout: give the log's scroll box a size, and let scrollTop move within it. */
function sizeScrollBox(element: HTMLElement, { scrollHeight, clientHeight }: { scrollHeight: number; clientHeight: number }) {
  let top = 0;
  Object.defineProperty(element, 'scrollHeight', { configurable: true, get: () => scrollHeight });
  Object.defineProperty(element, 'clientHeight', { configurable: true, get: () => clientHeight });
  Object.defineProperty(element, 'scrollTop', {
    configurable: true,
    get: () => top,
    set: (value: number) => {
      top = Math.max(0, Math.min(value, scrollHeight - clientHeight));
    },
  });
}

beforeEach(() => {
  localStorage.clear();
});

describe('ANSI colours', () => {
  it('parses SGR codes into styled segments without the escapes', () => {
    const segments = parseAnsi('\u001b[1m\u001b[31mError:\u001b[0m cannot find \u001b[38;5;208mmodule\u001b[0m');
    expect(segments.map((s) => s.text).join('')).toBe('Error: cannot find module');
    expect(segments[0]?.className).toContain('text-red-600');
    expect(segments[0]?.className).toContain('font-bold');
    expect(segments.find((s) => s.text === 'module')?.style?.color).toBe('rgb(255, 135, 0)');
    expect(stripAnsi('\u001b[32m✓\u001b[39m done')).toBe('✓ done');
  });

  it('shows what a terminal shows of a line redrawn with carriage returns', () => {
    expect(stripAnsi('progress 10%\rprogress 50%\rprogress 100%')).toBe('progress 100%');
  });

  it('renders coloured spans in the viewer, and no escape characters', () => {
    renderWithProviders(
      <LogViewer
        filename="test"
        lines={[line('\u001b[32mready\u001b[0m listening on 3000', 'stdout', 'web'), line('plain line')]}
      />,
    );
    const log = screen.getByRole('log');
    const ready = within(log).getByText('ready');
    expect(ready.tagName).toBe('SPAN');
    expect(ready.className).toContain('text-green-700');
    expect(log.textContent).toContain('listening on 3000');
    expect(log.textContent).not.toContain('\u001b');
    expect(log.textContent).toContain('plain line');
  });

  it('marks stderr and system lines by stream', () => {
    renderWithProviders(<LogViewer filename="test" lines={[line('── build', 'system'), line('oops', 'stderr')]} />);
    const log = screen.getByRole('log');
    expect(log.querySelector('[data-stream="stderr"]')?.className).toContain('border-l-red-500/70');
    expect(log.querySelector('[data-stream="system"]')?.className).toContain('border-l-sky-500/70');
  });
});

describe('search', () => {
  it('counts matches across lines (case-insensitive, ignoring colour codes)', () => {
    const lines = [line('Error one'), line('\u001b[31merror\u001b[0m two, error three'), line('all good')];
    expect(findMatches(lines, 'error')).toEqual([
      { line: 0, nth: 0 },
      { line: 1, nth: 0 },
      { line: 1, nth: 1 },
    ]);
    expect(findMatches(lines, '')).toEqual([]);
  });

  it('shows the count, steps through matches and highlights the current one', async () => {
    const { user } = renderWithProviders(
      <LogViewer
        filename="test"
        lines={[line('Error one'), line('\u001b[31merror\u001b[0m two, error three'), line('all good')]}
      />,
    );
    await user.type(screen.getByRole('searchbox', { name: 'Search logs' }), 'error');
    expect(await screen.findByText('1 of 3')).toBeInTheDocument();
    const marks = () => Array.from(screen.getByRole('log').querySelectorAll('mark'));
    expect(marks()).toHaveLength(3);
    expect(marks()[0]?.dataset.current).toBe('true');

    await user.click(screen.getByRole('button', { name: 'Next match' }));
    expect(screen.getByText('2 of 3')).toBeInTheDocument();
    expect(marks()[1]?.dataset.current).toBe('true');

    await user.keyboard('{Enter}');
    expect(screen.getByText('3 of 3')).toBeInTheDocument();
    await user.keyboard('{Enter}');
    expect(screen.getByText('1 of 3')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Previous match' }));
    expect(screen.getByText('3 of 3')).toBeInTheDocument();

    await user.clear(screen.getByRole('searchbox', { name: 'Search logs' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search logs' }), 'nothing like this');
    expect(await screen.findByText('No matches')).toBeInTheDocument();
  });
});

describe('follow mode', () => {
  it('stops following when the user scrolls up, and the Follow button resumes it at the end', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => line(`line ${i}`));
    const { user, rerender } = renderWithProviders(<LogViewer filename="test" lines={lines} />);
    const log = screen.getByRole('log');
    sizeScrollBox(log, { scrollHeight: 4000, clientHeight: 400 });
    // Following: new lines keep the view at the end.
    rerender(<LogViewer filename="test" lines={[...lines, line('one more')]} />);
    expect(log.scrollTop).toBe(3600);
    fireEvent.scroll(log);
    expect(screen.queryByRole('button', { name: 'Follow' })).not.toBeInTheDocument();

    // The user scrolls up: following stops, the view stays where the user put it.
    log.scrollTop = 1200;
    fireEvent.scroll(log);
    const follow = await screen.findByRole('button', { name: 'Follow' });
    rerender(<LogViewer filename="test" lines={[...lines, line('one more'), line('and another')]} />);
    expect(log.scrollTop).toBe(1200);

    // Follow: back to the end, the button goes away.
    await user.click(follow);
    expect(log.scrollTop).toBe(3600);
    expect(screen.queryByRole('button', { name: 'Follow' })).not.toBeInTheDocument();

    // Scrolling back down to the end by hand follows again too.
    log.scrollTop = 100;
    fireEvent.scroll(log);
    expect(await screen.findByRole('button', { name: 'Follow' })).toBeInTheDocument();
    log.scrollTop = 3600;
    fireEvent.scroll(log);
    expect(screen.queryByRole('button', { name: 'Follow' })).not.toBeInTheDocument();
  });
});

describe('toolbar', () => {
  it('toggles timestamps and remembers the choice', async () => {
    const { user } = renderWithProviders(<LogViewer filename="test" lines={[line('hello')]} />);
    const toggle = screen.getByRole('button', { name: 'Show timestamps' });
    const initial = toggle.getAttribute('aria-pressed') === 'true';
    expect(screen.getByRole('log').querySelectorAll('time')).toHaveLength(initial ? 1 : 0);
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-pressed', String(!initial));
    expect(screen.getByRole('log').querySelectorAll('time')).toHaveLength(initial ? 0 : 1);
    expect(localStorage.getItem('launchbay.logs.timestamps')).toBe(initial ? '0' : '1');
  });

  it('downloads what is loaded as a .log file of plain text', async () => {
    const created: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      created.push(blob);
      return 'blob:log';
    });
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const clicked: HTMLAnchorElement[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    const lines = [line('\u001b[32mok\u001b[0m', 'stdout', 'web'), line('── build', 'system')];
    const { user } = renderWithProviders(<LogViewer filename="shop-deployment-7" lines={lines} />);
    await user.click(screen.getByRole('button', { name: 'Download log' }));
    expect(click).toHaveBeenCalledTimes(1);
    expect(clicked[0]?.download).toBe('shop-deployment-7.log');
    expect(await created[0]?.text()).toBe(logText(lines));
    expect(logText(lines)).toBe(`${lines[0]?.at} web ok\n${lines[1]?.at} system ── build\n`);
  });

  afterEach(() => {
    vi.unstubAllGlobals();
  });
});

describe('connection status', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("counts down 'Reconnecting in Ns' with the retry delay", () => {
    vi.useFakeTimers();
    const now = Date.now();
    renderWithProviders(<ConnectionStatus connection={{ state: 'retrying', delayMs: 6000, retryAt: now + 6000, attempt: 2 }} />);
    expect(screen.getByRole('status')).toHaveTextContent('Reconnecting in 6s');
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(screen.getByRole('status')).toHaveTextContent('Reconnecting in 4s');
  });

  it("says 'Live' while the stream is open", () => {
    renderWithProviders(<ConnectionStatus connection={{ state: 'open' }} />);
    expect(screen.getByRole('status')).toHaveTextContent('Live');
  });
});
