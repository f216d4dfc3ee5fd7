export const PRODUCT_NAME = 'Launchbay';
export const VERSION_LABEL = 'v1.0.0';

/** Spec section 9: query cache constants. */
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const CURRENT_USER_STALE_TIME = 5 * MINUTE;
export const CURRENT_USER_GC_TIME = 10 * MINUTE;
export const CURRENT_USER_RETRY_DELAY = 100;
export const ACCESS_INFO_STALE_TIME = 5 * MINUTE;
export const ACCESS_INFO_RETRY = 3;
export const PRESETS_STALE_TIME = HOUR;
export const PRESETS_GC_TIME = 24 * HOUR;

/** Spec section 9: command palette loads 100 projects; the sidebar loads 4. */
export const PALETTE_PROJECTS_PER_PAGE = 100;
export const SIDEBAR_PROJECTS_PER_PAGE = 4;

/** Spec section 9: sidebar geometry and persistence. */
export const SIDEBAR_WIDTH = '16rem';
export const SIDEBAR_WIDTH_MINIMAL = '4rem';
export const SIDEBAR_WIDTH_MOBILE = '18rem';
export const MOBILE_BREAKPOINT = 768;
export const SIDEBAR_COOKIE_NAME = 'sidebar_state';
export const SIDEBAR_COOKIE_MAX_AGE = 60 * 60 * 24 * 7;
export const SIDEBAR_MINIMAL_STORAGE_KEY = 'sidebar_minimal';
export const SIDEBAR_KEYBOARD_SHORTCUT = 'b';
export const THEME_STORAGE_KEY = 'theme';

/** Spec section 9: script chunk load timeout. */
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;
