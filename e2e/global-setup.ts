import { assertBuilt } from './fixtures';

/** Fails once, before any worker starts, when the server or console has not been built. */
export default function globalSetup(): void {
  assertBuilt();
}
