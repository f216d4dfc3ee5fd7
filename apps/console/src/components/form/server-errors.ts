import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { isApiError } from '@/lib/api';

/**
 * Puts the server's field errors (`errors[].path`, the body path) under their form fields, the
 * first one focused. `fieldOf` names the form field of a path (null: the form has no such field).
 * Answers whether any error found its field (when none did, the caller shows the detail elsewhere).
 */
export function placeServerErrors<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  fieldOf: (path: string) => string | null | undefined,
): boolean {
  if (!isApiError(error)) return false;
  let placed = false;
  for (const fieldError of error.errors) {
    const field = fieldOf(fieldError.path);
    if (!field) continue;
    setError(field as Path<T>, { type: 'server', message: fieldError.message }, { shouldFocus: !placed });
    placed = true;
  }
  return placed;
}

/** `fieldOf` for forms whose fields are named like the body's keys. */
export const fieldsNamed =
  (fields: readonly string[]) =>
  (path: string): string | null =>
    fields.includes(path) ? path : null;
