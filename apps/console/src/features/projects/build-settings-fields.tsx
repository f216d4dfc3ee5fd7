import { FileJson } from 'lucide-react';
import { type Control, Controller, type FieldErrors, type UseFormRegister } from 'react-hook-form';
import { FormField } from '@/components/form/form-field';
import { Input } from '@/components/ui/input';
import {
  Select,
  SelectContent,
  SelectGroup,
  SelectItem,
  SelectLabel,
  SelectSeparator,
  SelectTrigger,
  SelectValue,
} from '@/components/ui/select';
import type { Preset } from './api';
import { AUTO_PRESET } from './new-project-schema';

/** The build settings both forms edit (create project, settings/general), as strings. */
export interface BuildSettingsValues {
  preset: string;
  install_command: string;
  build_command: string;
  start_command: string;
  output_directory: string;
  port: string;
}

const DETECTED = 'Detected automatically';

/** What a field shows when left empty: the chosen preset's default, or detection. */
function placeholderOf(preset: Preset | undefined, value: string | null | undefined, none: string): string {
  if (!preset) return DETECTED;
  return value ?? none;
}

export function LaunchbayJsonNote() {
  return (
    <p className="flex items-start gap-2 rounded-lg border border-dashed bg-muted/40 px-3 py-2.5 text-muted-foreground text-xs leading-relaxed">
      <FileJson className="mt-px size-4 shrink-0" />
      <span>
        A <code className="rounded bg-muted px-1 py-0.5 font-mono text-foreground">launchbay.json</code> in the repository wins
        over these settings. Leave a field empty to use what Launchbay detects. See the{' '}
        <a
          href="/api/launchbay-json/schema"
          target="_blank"
          rel="noreferrer"
          className="font-medium text-foreground underline underline-offset-4"
        >
          launchbay.json schema
        </a>
        .
      </span>
    </p>
  );
}

/**
 * Preset, commands, output directory and port. Each command field's placeholder is the chosen
 * preset's default, so leaving it empty visibly means 'use that'.
 */
export function BuildSettingsFields<T extends BuildSettingsValues, TOut>({
  idPrefix,
  control,
  register,
  errors,
  presets,
  presetsLoading,
  preset,
}: {
  idPrefix: string;
  control: Control<T, unknown, TOut>;
  register: UseFormRegister<T>;
  errors: FieldErrors<BuildSettingsValues>;
  presets: Preset[] | undefined;
  presetsLoading: boolean;
  /** The preset slug currently chosen. */
  preset: string;
}) {
  const chosen = presets?.find((item) => item.slug === preset);
  const servers = (presets ?? []).filter((item) => item.kind !== 'static').sort((a, b) => a.name.localeCompare(b.name));
  const statics = (presets ?? []).filter((item) => item.kind === 'static').sort((a, b) => a.name.localeCompare(b.name));
  const isStatic = chosen?.kind === 'static';
  // biome-ignore lint/suspicious/noExplicitAny: react-hook-form's Path<T> cannot see that T extends BuildSettingsValues
  const field = (name: keyof BuildSettingsValues) => name as any;
  // The text fields that hold a command or a path: the same input, each with its own default shown.
  const commandFields: {
    name: 'install_command' | 'build_command' | 'start_command' | 'output_directory';
    suffix: string;
    label: string;
    hint?: string;
    placeholder: string;
  }[] = [
    {
      name: 'install_command',
      suffix: 'install',
      label: 'Install command',
      placeholder: placeholderOf(chosen, chosen?.install_command, 'Detected from the lockfile'),
    },
    {
      name: 'build_command',
      suffix: 'build',
      label: 'Build command',
      placeholder: placeholderOf(chosen, chosen?.build_command, 'None'),
    },
    {
      name: 'start_command',
      suffix: 'start',
      label: 'Start command',
      hint: isStatic ? 'Static sites are served by the edge: no process to start.' : undefined,
      placeholder: placeholderOf(chosen, chosen?.start_command, isStatic ? 'None (static)' : 'npm start'),
    },
    {
      name: 'output_directory',
      suffix: 'output',
      label: 'Output directory',
      placeholder: placeholderOf(chosen, chosen?.output_directory, isStatic ? '.' : 'None'),
    },
  ];
  return (
    <div className="grid gap-5">
      <FormField
        id={`${idPrefix}-preset`}
        label="Framework preset"
        hint={
          chosen
            ? `${chosen.name}: ${chosen.kind === 'static' ? 'a static site served from its output folder' : 'a server process'}.`
            : 'Launchbay looks at the repository (package.json, lockfiles, config files) to pick one.'
        }
        error={errors.preset?.message}
      >
        <Controller
          control={control}
          name={field('preset')}
          render={({ field: presetField }) => (
            <Select value={presetField.value as string} onValueChange={presetField.onChange} disabled={presetsLoading}>
              <SelectTrigger id={`${idPrefix}-preset`} aria-invalid={errors.preset ? true : undefined}>
                <SelectValue placeholder={presetsLoading ? 'Loading presets…' : 'Detect automatically'} />
              </SelectTrigger>
              <SelectContent className="max-h-80">
                <SelectItem value={AUTO_PRESET}>Detect automatically</SelectItem>
                {servers.length > 0 ? (
                  <>
                    <SelectSeparator />
                    <SelectGroup>
                      <SelectLabel>Servers</SelectLabel>
                      {servers.map((item) => (
                        <SelectItem key={item.slug} value={item.slug}>
                          {item.name}
                        </SelectItem>
                      ))}
                    </SelectGroup>
                  </>
                ) : null}
                {statics.length > 0 ? (
                  <>
                    <SelectSeparator />
                    <SelectGroup>
                      <SelectLabel>Static sites</SelectLabel>
                      {statics.map((item) => (
                        <SelectItem key={item.slug} value={item.slug}>
                          {item.name}
                        </SelectItem>
                      ))}
                    </SelectGroup>
                  </>
                ) : null}
                {/* A preset saved earlier that this server no longer lists. */}
                {preset && preset !== AUTO_PRESET && presets && !chosen ? <SelectItem value={preset}>{preset}</SelectItem> : null}
              </SelectContent>
            </Select>
          )}
        />
      </FormField>
      <div className="grid gap-5 sm:grid-cols-2">
        {commandFields.map(({ name, suffix, label, hint, placeholder }) => (
          <FormField key={name} id={`${idPrefix}-${suffix}`} label={label} optional hint={hint} error={errors[name]?.message}>
            <Input
              id={`${idPrefix}-${suffix}`}
              className="font-mono"
              autoComplete="off"
              spellCheck={false}
              placeholder={placeholder}
              aria-invalid={errors[name] ? true : undefined}
              {...register(field(name))}
            />
          </FormField>
        ))}
        <FormField
          id={`${idPrefix}-port`}
          label="Port"
          optional
          hint="The port a server listens on; it also gets it as PORT."
          error={errors.port?.message}
        >
          <Input
            id={`${idPrefix}-port`}
            inputMode="numeric"
            autoComplete="off"
            placeholder="Assigned automatically"
            aria-invalid={errors.port ? true : undefined}
            {...register(field('port'))}
          />
        </FormField>
      </div>
    </div>
  );
}
