import {
  type CurrentUser,
  type Environment,
  PLATFORM_SETTINGS_DEFAULTS,
  type PlatformSettings,
  type ProjectDetail,
} from '@launchbay/contract';

const NOW = new Date().toISOString();

/** The production environment of `providerProject()`. */
export const PRODUCTION_ENVIRONMENT: Environment = {
  id: 11,
  project_id: 5,
  name: 'production',
  slug: 'production',
  branch: 'main',
  is_production: true,
  url: 'http://shop.localhost:8080',
  current_deployment_id: null,
  memory_mb: null,
  cpu_percent: null,
  instances: 1,
  pr_number: null,
  created_at: NOW,
};

/** A project (`shop`, id 5) from a connected GitHub repository with its webhook registered, as GET by-slug answers it. */
export function providerProject(overrides: Partial<ProjectDetail> = {}): ProjectDetail {
  return {
    id: 5,
    name: 'Shop',
    slug: 'shop',
    created_at: NOW,
    git_url: 'https://github.com/octo-user/shop.git',
    has_git_token: true,
    deploy_key_public: null,
    branch: 'main',
    root_directory: '.',
    preset: null,
    install_command: null,
    build_command: null,
    start_command: null,
    output_directory: null,
    port: null,
    automatic_deploy: true,
    previews_enabled: true,
    repository: {
      id: 9,
      full_name: 'octo-user/shop',
      html_url: null,
      connection_id: 2,
      provider_type: 'github',
      webhook_registered: true,
    },
    url: 'http://shop.localhost:8080',
    environments: [PRODUCTION_ENVIRONMENT],
    last_deployment: null,
    updated_at: NOW,
    ...overrides,
  };
}

/** Platform settings as GET /settings answers them; each test names only what it depends on. */
export function platformSettings(overrides: Partial<PlatformSettings> = {}): PlatformSettings {
  return {
    ...PLATFORM_SETTINGS_DEFAULTS,
    kept_builds_per_environment: 7,
    ...overrides,
  };
}

/** The signed-in user of a component test (GET /api/user/me), with these roles. */
export function currentUser(roles: CurrentUser['roles']): CurrentUser {
  return { id: 1, username: 'someone', email: 'someone@example.com', avatar_url: null, roles, mfa_enabled: false };
}
