/**
 * Actions the server records (apps/server/src/modules/audit/recorder.ts derives them from the
 * route: 'PUT /api/settings' -> 'settings.update'). Used as filter suggestions; a prefix ending
 * in '.' matches every action under it.
 */
export const ACTION_SUGGESTIONS: { value: string; description: string }[] = [
  { value: 'settings.update', description: 'Platform settings changed' },
  { value: 'api_keys.', description: 'Every API key action' },
  { value: 'api_keys.create', description: 'API key created' },
  { value: 'api_keys.update', description: 'API key changed' },
  { value: 'api_keys.activate', description: 'API key activated' },
  { value: 'api_keys.deactivate', description: 'API key deactivated' },
  { value: 'api_keys.delete', description: 'API key deleted' },
  { value: 'users.', description: 'Every user action' },
  { value: 'users.create', description: 'User created' },
  { value: 'users.update', description: 'User changed, disabled or enabled' },
  { value: 'users.delete', description: 'User deleted' },
  { value: 'users.roles.create', description: 'Role granted' },
  { value: 'users.roles.delete', description: 'Role removed' },
  { value: 'users.me.update', description: 'Own profile or password changed' },
  { value: 'users.me.mfa.verify', description: 'Two-factor authentication turned on' },
  { value: 'users.me.mfa.delete', description: 'Two-factor authentication turned off' },
  { value: 'notification_providers.', description: 'Every notification provider action' },
  { value: 'notification_providers.test', description: 'Test notification sent' },
  { value: 'notification_preferences.update', description: 'Alert preferences changed' },
  { value: 'auth.', description: 'Every sign-in event' },
  { value: 'auth.login', description: 'Signed in' },
  { value: 'auth.login_failed', description: 'Failed sign-in attempt' },
  { value: 'auth.verify_mfa', description: 'Second factor accepted' },
  { value: 'auth.verify_mfa_failed', description: 'Wrong second-factor code' },
  { value: 'logout', description: 'Signed out' },
];

export const TARGET_TYPES: { value: string; label: string }[] = [
  { value: 'user', label: 'User' },
  { value: 'api_key', label: 'API key' },
  { value: 'settings', label: 'Settings' },
  { value: 'project', label: 'Project' },
  { value: 'notification_provider', label: 'Notification provider' },
  { value: 'notification_preferences', label: 'Alert preferences' },
];
