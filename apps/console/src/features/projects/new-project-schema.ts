import {
  branchNameSchema,
  buildSettingsSchema,
  type CreateProjectRequest,
  createEnvVarRequestSchema,
  createProjectRequestSchema,
  envVarKeySchema,
  gitUrlSchema,
} from '@launchbay/contract';
import { z } from 'zod';

/** The preset select's value for 'no preset: detect from the repository'. */
export const AUTO_PRESET = 'auto';

const shape = buildSettingsSchema.shape;

/** An optional folder: empty means 'not set' (null); anything else must pass the contract's rules. */
const optionalFolder = (schema: typeof shape.root_directory) =>
  z
    .string()
    .transform((value): string | null | undefined => (value.trim() === '' ? null : value))
    .pipe(schema);

/** A form's string into one of the contract's optional settings (which also take null or nothing). */
const fromString = (schema: typeof shape.install_command) =>
  z
    .string()
    .transform((value): string | null | undefined => value)
    .pipe(schema);

/** The build settings as form fields (strings), to the contract's values and messages. */
export const buildSettingsFormShape = {
  root_directory: optionalFolder(shape.root_directory),
  preset: z.string(),
  install_command: fromString(shape.install_command),
  build_command: fromString(shape.build_command),
  start_command: fromString(shape.start_command),
  output_directory: optionalFolder(shape.output_directory),
  port: z
    .string()
    .trim()
    .regex(/^\d*$/, 'Port is 1 to 65535')
    .transform((value): number | null | undefined => (value === '' ? null : Number(value)))
    .pipe(shape.port),
};

export const newProjectFormSchema = z
  .object({
    name: createProjectRequestSchema.shape.name,
    git_url: gitUrlSchema,
    git_token: z.string().max(1000, 'At most 1000 characters'),
    branch: branchNameSchema,
    ...buildSettingsFormShape,
    env: z.array(z.object({ key: z.string(), value: z.string() })),
  })
  .superRefine((values, ctx) => {
    const seen = new Set<string>();
    values.env.forEach((row, index) => {
      const key = row.key.trim();
      if (key === '' && row.value === '') return;
      const parsed = envVarKeySchema.safeParse(row.key);
      if (!parsed.success) {
        ctx.addIssue({ code: 'custom', path: ['env', index, 'key'], message: parsed.error.issues[0]?.message ?? 'Invalid key' });
      } else if (seen.has(key)) {
        ctx.addIssue({ code: 'custom', path: ['env', index, 'key'], message: `${key} is already in the list` });
      }
      seen.add(key);
      const value = createEnvVarRequestSchema.shape.value.safeParse(row.value);
      if (!value.success) {
        ctx.addIssue({
          code: 'custom',
          path: ['env', index, 'value'],
          message: value.error.issues[0]?.message ?? 'Invalid value',
        });
      }
    });
  });

export type NewProjectFormInput = z.input<typeof newProjectFormSchema>;
export type NewProjectFormOutput = z.output<typeof newProjectFormSchema>;

export const EMPTY_NEW_PROJECT: NewProjectFormInput = {
  name: '',
  git_url: '',
  git_token: '',
  branch: 'main',
  root_directory: '',
  preset: AUTO_PRESET,
  install_command: '',
  build_command: '',
  start_command: '',
  output_directory: '',
  port: '',
  env: [{ key: '', value: '' }],
};

/** The create body: the variables go with it, so the first build already has them. */
export type NewProjectSubmission = CreateProjectRequest;

/** The create body: only what was set (the server detects the rest), and the variables. */
export function toSubmission(values: NewProjectFormOutput): NewProjectSubmission {
  const project: CreateProjectRequest = {
    name: values.name,
    git_url: values.git_url,
    branch: values.branch,
  };
  const token = values.git_token.trim();
  if (token) project.git_token = token;
  if (values.root_directory && values.root_directory !== '.') project.root_directory = values.root_directory;
  if (values.preset && values.preset !== AUTO_PRESET) project.preset = values.preset;
  if (values.install_command) project.install_command = values.install_command;
  if (values.build_command) project.build_command = values.build_command;
  if (values.start_command) project.start_command = values.start_command;
  if (values.output_directory) project.output_directory = values.output_directory;
  if (values.port) project.port = values.port;
  const envVars = values.env
    .filter((row) => row.key.trim() !== '' || row.value !== '')
    .map((row) => ({ key: row.key.trim(), value: row.value }));
  if (envVars.length > 0) project.env_vars = envVars;
  return project;
}

/** The repository's name from its address, as a default project name ('…/acme/my-site.git' -> 'my-site'). */
export function nameFromGitUrl(url: string): string {
  const trimmed = url
    .trim()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  const last = trimmed.split(/[/:]/).pop() ?? '';
  return /^[A-Za-z0-9._-]+$/.test(last) && !/^\d+$/.test(last) ? last : '';
}

/** The form fields the server's field errors may name. */
export const SERVER_FIELDS = [
  'name',
  'git_url',
  'git_token',
  'branch',
  'root_directory',
  'preset',
  'install_command',
  'build_command',
  'start_command',
  'output_directory',
  'port',
] as const;

// ---------------------------------------------------------------------------------------------
// A project from a connected repository (a git provider's): the repository, its branch, a name.

export const PICK_REPOSITORY_MESSAGE = 'Pick a repository';

export const repositoryProjectFormSchema = z.object({
  repository_id: z
    .number()
    .int()
    .positive()
    .nullable()
    .refine((id) => id !== null, PICK_REPOSITORY_MESSAGE)
    .transform((id) => id as number),
  branch: branchNameSchema,
  name: createProjectRequestSchema.shape.name,
});

export type RepositoryProjectFormInput = z.input<typeof repositoryProjectFormSchema>;
export type RepositoryProjectFormOutput = z.output<typeof repositoryProjectFormSchema>;

export const EMPTY_REPOSITORY_PROJECT: RepositoryProjectFormInput = { repository_id: null, branch: '', name: '' };

/** The create body of a project from a connected repository: the server detects the build settings. */
export function toRepositorySubmission(values: RepositoryProjectFormOutput): NewProjectSubmission {
  return { name: values.name, repository_id: values.repository_id, branch: values.branch };
}

/** The fields of that form the server's field errors may name. */
export const REPOSITORY_SERVER_FIELDS = ['name', 'branch', 'repository_id'] as const;
