/*
 * Reading cron patterns and times for people. Only common shapes get a reading; anything else
 * shows the raw pattern alone (the page always shows the raw pattern too). Everything is UTC,
 * as the server reads the patterns.
 */

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const NUMBER = /^\d+$/;

const pad = (value: number) => String(value).padStart(2, '0');

function clock(minute: string, hour: string): string | null {
  if (!NUMBER.test(minute) || !NUMBER.test(hour)) return null;
  const m = Number(minute);
  const h = Number(hour);
  if (m > 59 || h > 23) return null;
  return `${pad(h)}:${pad(m)} UTC`;
}

function ordinal(day: number): string {
  const tens = day % 100;
  if (tens >= 11 && tens <= 13) return `${day}th`;
  return `${day}${['th', 'st', 'nd', 'rd'][day % 10] ?? 'th'}`;
}

/** '*\/5' -> 5; anything else -> null. */
function step(field: string): number | null {
  const match = /^\*\/(\d+)$/.exec(field);
  return match ? Number(match[1]) : null;
}

function weekdays(field: string): string | null {
  if (field === '1-5') return 'every weekday';
  if (field === '0,6' || field === '6,0' || field === '6-7') return 'every weekend day';
  if (NUMBER.test(field) && Number(field) <= 7) return `every ${WEEKDAYS[Number(field) % 7]}`;
  return null;
}

const NICKNAMES: Record<string, string> = {
  '@hourly': 'every hour, on the hour',
  '@daily': 'every day at 00:00 UTC',
  '@weekly': 'every Sunday at 00:00 UTC',
  '@monthly': 'on the 1st of every month at 00:00 UTC',
  '@yearly': 'every year on 1 January at 00:00 UTC',
  '@annually': 'every year on 1 January at 00:00 UTC',
};

/**
 * A short reading of a cron pattern ('every day at 03:00 UTC'), or null when the pattern is not
 * one of the common shapes (the caller then shows the pattern alone).
 */
export function describeSchedule(schedule: string): string | null {
  const value = schedule.trim();
  const nickname = NICKNAMES[value.toLowerCase()];
  if (nickname) return nickname;
  let fields = value.split(/\s+/);
  if (fields.length === 6) {
    // Seconds first: only a zero second reads like the 5-field pattern.
    if (fields[0] !== '0') return null;
    fields = fields.slice(1);
  }
  if (fields.length !== 5) return null;
  const [minute = '', hour = '', day = '', month = '', weekday = ''] = fields;
  if (month !== '*') return null;
  const anyDay = day === '*' || day === '?';
  const anyWeekday = weekday === '*' || weekday === '?';

  if (anyDay && anyWeekday && hour === '*') {
    if (minute === '*') return 'every minute';
    const every = step(minute);
    if (every !== null && every > 0 && every < 60) return every === 1 ? 'every minute' : `every ${every} minutes`;
    if (NUMBER.test(minute) && Number(minute) < 60) {
      return minute === '0' ? 'every hour, on the hour' : `every hour at minute ${Number(minute)}`;
    }
    return null;
  }
  if (anyDay && anyWeekday && NUMBER.test(minute) && Number(minute) < 60) {
    const every = step(hour);
    if (every !== null && every > 0 && every < 24) {
      const at = minute === '0' ? '' : ` at minute ${Number(minute)}`;
      return every === 1 ? `every hour${at || ', on the hour'}` : `every ${every} hours${at}`;
    }
  }
  const time = clock(minute, hour);
  if (!time) return null;
  if (anyDay && anyWeekday) return `every day at ${time}`;
  if (anyDay) {
    const days = weekdays(weekday);
    return days ? `${days} at ${time}` : null;
  }
  if (anyWeekday && NUMBER.test(day) && Number(day) >= 1 && Number(day) <= 31) {
    return `on the ${ordinal(Number(day))} of every month at ${time}`;
  }
  return null;
}

/** An instant in UTC as operators read it: '2025-06-01 03:00 UTC' (seconds when they are not zero). */
export function formatUtc(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  const text = date.toISOString();
  const seconds = text.slice(17, 19);
  return `${text.slice(0, 10)} ${text.slice(11, 16)}${seconds === '00' ? '' : `:${seconds}`} UTC`;
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** 'in 4 minutes', '3 hours ago'; under a minute away: 'in less than a minute' / 'just now'. */
export function relativeTo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return '';
  const seconds = Math.round((time - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return seconds >= 0 ? 'in less than a minute' : 'just now';
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86_400), 'day');
}

/** 12 ms, 1.2 s, 31 s. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 1000)} s`;
}
