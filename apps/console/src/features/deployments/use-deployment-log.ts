import { useEffect, useState } from 'react';
import type { LogLine } from '@/components/log-viewer/log-viewer';
import { openStream, type StreamState } from '@/lib/stream';

/** Lines kept in memory: a long-running app's log keeps growing; the oldest go first. */
export const MAX_LOG_LINES = 50_000;
/** Lines arriving together (a replay of 20,000 build lines) are rendered in one go this often. */
const FLUSH_MS = 100;

const STREAMS = new Set<LogLine['stream']>(['build', 'stdout', 'stderr', 'system']);

function toLogLine(data: unknown): LogLine {
  const value = data as Partial<LogLine> | null;
  if (!value || typeof value.id !== 'number' || typeof value.line !== 'string') throw new Error('Not a log line');
  return {
    id: value.id,
    at: typeof value.at === 'string' ? value.at : new Date().toISOString(),
    stream: STREAMS.has(value.stream as LogLine['stream']) ? (value.stream as LogLine['stream']) : 'stdout',
    process: typeof value.process === 'string' ? value.process : null,
    line: value.line,
  };
}

/**
 * A deployment's build and runtime log, streamed (SSE `log` events): the lines so far, kept
 * growing while the page is open, and the stream's state (for 'Reconnecting in Ns'). A dropped
 * connection resumes after the last line received.
 */
export function useDeploymentLog(projectId: number | undefined, deploymentId: number | undefined) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [dropped, setDropped] = useState(0);
  const [connection, setConnection] = useState<StreamState>({ state: 'connecting' });

  useEffect(() => {
    setLines([]);
    setDropped(0);
    if (projectId === undefined || deploymentId === undefined) return;
    let all: LogLine[] = [];
    let droppedCount = 0;
    let pending: LogLine[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastId = 0;
    const flush = () => {
      timer = undefined;
      if (pending.length === 0) return;
      all = all.concat(pending);
      pending = [];
      if (all.length > MAX_LOG_LINES) {
        const over = all.length - MAX_LOG_LINES;
        all = all.slice(over);
        droppedCount += over;
        setDropped(droppedCount);
      }
      setLines(all);
    };
    const close = openStream<LogLine>(`/api/projects/${projectId}/deployments/${deploymentId}/logs`, {
      events: ['log'],
      parse: (raw) => toLogLine(JSON.parse(raw)),
      onMessage: (line) => {
        if (line.id <= lastId) return; // a replay after a reconnect
        lastId = line.id;
        pending.push(line);
        timer ??= setTimeout(flush, FLUSH_MS);
      },
      onStateChange: setConnection,
    });
    return () => {
      close();
      clearTimeout(timer);
    };
  }, [projectId, deploymentId]);

  return { lines, dropped, connection };
}
