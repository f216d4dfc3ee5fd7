import { generate } from 'otplib';

const STEP_SECONDS = 30;

/**
 * A real TOTP code for `secret`, `stepsAhead` 30 s steps from now. The server refuses a step it
 * has already accepted (replay guard) and tolerates one step of drift, so a test that needs two
 * codes in a row uses the current step and then the next one.
 */
export function totp(secret: string, stepsAhead = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + stepsAhead * STEP_SECONDS });
}

/** A well-formed 6-digit code that is valid for no step the server could accept now. */
export async function wrongTotp(secret: string): Promise<string> {
  const valid = new Set(await Promise.all([-2, -1, 0, 1, 2].map((step) => totp(secret, step))));
  let candidate = 123456;
  while (valid.has(String(candidate))) candidate += 1;
  return String(candidate);
}
