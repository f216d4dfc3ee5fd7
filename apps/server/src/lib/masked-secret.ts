/*
 * The one rule for secrets shown masked and sent back: SMTP passwords and Slack webhook URLs
 * today; git tokens, S3 keys and secret env vars are to use the same helper.
 *
 * Reads never return a secret, only a mask. A form sends the mask back to mean "keep what is
 * stored". That is safe only while the secret still goes where it went: a mask sent with a
 * changed destination (another host, port, user name, TLS mode, or webhook origin) would hand
 * the stored secret to a server of the sender's choosing, so then the secret must be typed
 * again. A mask sent when nothing is stored is refused too (the literal mask is never saved).
 */

export type MaskedSecretInput = {
  /** The value the client sent for the secret field. */
  sent: string;
  /** The mask reads answer, or a test for masks that embed more (a webhook URL keeps its scheme and host). */
  mask: string | ((sent: string) => boolean);
  /** The stored secret, sealed (null or undefined when none is stored). */
  storedSealed: string | null | undefined;
  /** Whether everything the secret authenticates to is the same as when it was stored. */
  destinationUnchanged: boolean;
  /** The field error's path, e.g. 'config.password'. */
  field: string;
  /** What to ask for: 'password', 'webhook URL'. */
  label: string;
  /** What counts as the destination, for the message: 'the server, port, username or TLS settings'. */
  destination: string;
};

export type MaskedSecretDecision =
  /** Not the mask: a new secret, for the caller to seal. */
  | { action: 'use_sent' }
  /** The mask, for an unchanged destination: keep this sealed secret. */
  | { action: 'keep_stored'; sealed: string }
  /** The mask cannot stand for the stored secret: answer 400 with this field error. */
  | { action: 'ask_again'; error: { path: string; message: string } };

export function decideMaskedSecret(input: MaskedSecretInput): MaskedSecretDecision {
  const isMask = typeof input.mask === 'string' ? input.sent === input.mask : input.mask(input.sent);
  if (!isMask) return { action: 'use_sent' };
  if (!input.storedSealed) {
    return {
      action: 'ask_again',
      error: { path: input.field, message: `Enter the ${input.label}: there is no stored ${input.label} to keep` },
    };
  }
  if (!input.destinationUnchanged) {
    return {
      action: 'ask_again',
      error: { path: input.field, message: `Enter the ${input.label} again: ${input.destination} changed` },
    };
  }
  return { action: 'keep_stored', sealed: input.storedSealed };
}
