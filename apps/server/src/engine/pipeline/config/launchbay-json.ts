/**
 * `launchbay.json` at an app's root directory: the build configuration that the repository itself
 * holds. Every field it sets wins over the project's settings. Its JSON Schema (`launchbayJsonSchema()`)
 * is served by the API so that editors can check the file as it is written.
 */
import { Cron } from 'croner';
import { z } from 'zod';
import type { FieldError } from '../../../lib/errors';

export const LAUNCHBAY_JSON = 'launchbay.json';

/** A process type, as in a Procfile: `web`, `worker`, `clock`... */
export const PROCESS_TYPE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const command = z.string().trim().min(1, 'Must not be empty').max(4096);

function isCronExpression(value: string): boolean {
  try {
    new Cron(value, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

export const launchbayJson = z
  .strictObject({
    $schema: z.string().optional(),
    installCommand: command
      .nullable()
      .optional()
      .describe(
        'Installs the dependencies; null skips the install. Default: from the lockfile (npm ci, pnpm install --frozen-lockfile...).',
      ),
    buildCommand: command
      .nullable()
      .optional()
      .describe(
        'Builds the app; null skips the build. Default: `<package manager> run build` when package.json has a build script.',
      ),
    startCommand: command.optional().describe('Starts the `web` process, which gets the traffic and listens on $PORT.'),
    outputDirectory: z
      .string()
      .trim()
      .min(1, 'Must not be empty')
      .regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$)).*$/, 'Must be a folder inside the root directory')
      .optional()
      .describe('For a static site (no start command): the folder served, relative to the root directory, e.g. `dist`.'),
    port: z
      .number()
      .int('Expected an integer')
      .min(1, 'Must be between 1 and 65535')
      .max(65535, 'Must be between 1 and 65535')
      .optional()
      .describe('The port the app listens on when it ignores $PORT.'),
    healthCheckPath: z
      .string()
      .regex(/^\/\S*$/, 'Must be a path starting with /')
      .max(2048)
      .optional()
      .describe('Answered with a 2xx or 3xx once the app is ready. Default: /.'),
    processes: z
      .record(z.string().regex(PROCESS_TYPE, 'Must be letters, digits, - or _'), command)
      .optional()
      .describe('Process types and their commands, as in a Procfile: `web` gets the traffic, the others run beside it.'),
    requiredEnv: z
      .array(z.string().regex(ENV_NAME, 'Must be an environment variable name (letters, digits and _)'))
      .optional()
      .describe('Environment variables the app needs: a deploy without them fails before building.'),
    crons: z
      .array(
        z.strictObject({
          path: z.string().regex(/^\/\S*$/, 'Must be a path starting with /'),
          schedule: z.string().refine(isCronExpression, 'Must be a cron expression, e.g. `0 3 * * *`'),
        }),
      )
      .optional()
      .describe('HTTP calls made to the `web` process on a schedule.'),
  })
  .superRefine((value, ctx) => {
    if (value.startCommand !== undefined && value.processes?.web !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['startCommand'], message: 'Set either startCommand or processes.web, not both' });
    }
  })
  .meta({ title: 'launchbay.json', description: 'Build configuration of a Launchbay app.' });

export type LaunchbayJson = z.infer<typeof launchbayJson>;

/** The JSON Schema of launchbay.json (draft 2020-12), for `GET /api/schemas/launchbay.json` and editors. */
export function launchbayJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(launchbayJson, { target: 'draft-2020-12', io: 'input' });
}

const TYPE_NAMES: Record<string, string> = { int: 'integer', record: 'object' };

function message(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return 'Required';
    return `Expected ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
  }
  return undefined;
}

const pathOf = (segments: readonly PropertyKey[]) => segments.map(String).join('.') || '(root)';

/** The errors of a zod parse, one per field, with their JSON path (`processes.web`, `crons.0.schedule`). */
function fieldErrors(error: z.ZodError): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors.push({ path: pathOf([...issue.path, key]), message: 'Unknown field' });
    } else if (issue.code === 'invalid_key') {
      errors.push({ path: pathOf(issue.path), message: issue.issues[0]?.message ?? issue.message });
    } else {
      errors.push({ path: pathOf(issue.path), message: issue.message });
    }
  }
  return errors;
}

/** A JSON.parse error without the excerpt of the file that V8 puts in it, with its line and column when it says. */
function jsonError(text: string, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const reason = raw.replace(/, ".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
  const position = /at position (\d+)/.exec(raw)?.[1];
  if (position === undefined) return `Invalid JSON: ${reason}`;
  const before = text.slice(0, Number(position));
  const line = before.split('\n').length;
  const column = Number(position) - before.lastIndexOf('\n');
  return `Invalid JSON: ${reason} at line ${line}, column ${column}`;
}

/** Parses and validates the text of a launchbay.json. */
export function parseLaunchbayJson(text: string): { ok: true; value: LaunchbayJson } | { ok: false; errors: FieldError[] } {
  const source = text.replace(/^\uFEFF/, '');
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (error) {
    return { ok: false, errors: [{ path: '(root)', message: jsonError(source, error) }] };
  }
  const parsed = launchbayJson.safeParse(data, { error: message });
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error) };
  return { ok: true, value: parsed.data };
}
