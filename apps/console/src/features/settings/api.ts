export { settingsQueryKey, useSettings } from '@/lib/settings';

export { useUpdateSettings } from '@/lib/settings-form';
