import { PRODUCT_NAME } from '@launchbay/contract';
import type { OutgoingMessage } from './senders';

/** What a notification says, whatever the channel: rendered at send time from the stored row. */
export type AlertContent = {
  type: string;
  severity: 'critical' | 'warning' | 'info';
  title: string;
  message: string;
  occurrences: number;
  firstAt: Date;
  lastAt: Date;
  projectId: number | null;
  data: Record<string, unknown>;
};

const SEVERITY_LABEL = { critical: 'CRITICAL', warning: 'WARNING', info: 'INFO' } as const;
const SEVERITY_EMOJI = { critical: ':red_circle:', warning: ':warning:', info: ':information_source:' } as const;

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
/** Slack mrkdwn: only &, < and > are control characters. */
const escapeSlack = (value: string) => value.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] ?? c);

function detailLines(content: AlertContent): [string, string][] {
  const lines: [string, string][] = [
    ['Severity', content.severity],
    ['Type', content.type],
  ];
  if (content.projectId !== null) lines.push(['Project', String(content.projectId)]);
  for (const [key, value] of Object.entries(content.data).slice(0, 20)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text !== undefined) lines.push([key, text.length > 300 ? `${text.slice(0, 300)}…` : text]);
  }
  return lines;
}

export function renderAlert(content: AlertContent, consoleUrl: string | undefined): OutgoingMessage {
  const repeated = content.occurrences > 1;
  const times = repeated ? ` (${content.occurrences} times)` : '';
  const subject = `[${PRODUCT_NAME}] [${SEVERITY_LABEL[content.severity]}] ${content.title}${times}`.slice(0, 250);
  const batchNote = repeated
    ? `This alert occurred ${content.occurrences} times between ${content.firstAt.toISOString()} and ${content.lastAt.toISOString()}; similar alerts were batched into this one message.`
    : null;
  const details = detailLines(content);
  const footer = `Sent by ${PRODUCT_NAME}${consoleUrl ? ` (${consoleUrl})` : ''}. Choose which alerts you receive under Monitoring > Notifications.`;

  const text = [
    content.message,
    '',
    ...(batchNote ? [batchNote, ''] : []),
    ...details.map(([k, v]) => `${k}: ${v}`),
    '',
    '--',
    footer,
  ].join('\n');
  const html = [
    `<h2 style="margin:0 0 12px">${escapeHtml(content.title)}${escapeHtml(times)}</h2>`,
    `<p style="white-space:pre-wrap">${escapeHtml(content.message)}</p>`,
    batchNote ? `<p><strong>${escapeHtml(batchNote)}</strong></p>` : '',
    '<table cellpadding="4" style="border-collapse:collapse">',
    ...details.map(([k, v]) => `<tr><td><strong>${escapeHtml(k)}</strong></td><td>${escapeHtml(v)}</td></tr>`),
    '</table>',
    `<p style="color:#666;font-size:12px">${escapeHtml(footer)}</p>`,
  ].join('\n');

  const headline = `${SEVERITY_EMOJI[content.severity]} *[${SEVERITY_LABEL[content.severity]}] ${escapeSlack(content.title)}*${times}`;
  const slackText = [headline, escapeSlack(content.message), ...(batchNote ? [`_${escapeSlack(batchNote)}_`] : [])].join('\n');
  const blocks = [
    { type: 'section', text: { type: 'mrkdwn', text: slackText.slice(0, 2900) } },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: escapeSlack(
            details
              .slice(0, 8)
              .map(([k, v]) => `${k}: ${v}`)
              .join(' · '),
          ).slice(0, 2900),
        },
      ],
    },
  ];
  return { subject, text, html, slack: { text: slackText, blocks } };
}
