/** Timestamps leave the API as ISO 8601 strings, whether the driver gave a Date or a string. */
export function toIso(value: Date | string): string {
  return new Date(value).toISOString();
}

export function toIsoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : toIso(value);
}
