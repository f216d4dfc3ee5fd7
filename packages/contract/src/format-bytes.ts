const BYTE_UNITS = ['Bytes', 'KB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'] as const;

/** A size as people read it (spec section 9: units Bytes to YB, base 1024, 2 decimals by default); the console and the build log say sizes alike. */
export function formatBytes(bytes: number, decimals = 2): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  const k = 1024;
  const dm = Math.max(0, decimals);
  const i = Math.max(0, Math.min(Math.floor(Math.log(bytes) / Math.log(k)), BYTE_UNITS.length - 1));
  return `${Number.parseFloat((bytes / k ** i).toFixed(dm))} ${BYTE_UNITS[i]}`;
}
