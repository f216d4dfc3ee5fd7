import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { sha256 } from '../../lib/crypto';
import { badRequest } from '../../lib/errors';
import type { Principal } from '../../lib/http';
import { mfaRecoveryCodes, users } from '../users/schema';

const ISSUER = 'Launchbay';
const RECOVERY_CODE_COUNT = 10;
/** One step either side absorbs clock drift between the server and the phone. */
const EPOCH_TOLERANCE_S = 30;

type UserRow = typeof users.$inferSelect;

const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');

function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(12);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
}

/** Checks a TOTP code against a secret, refusing a step already used (no replay). */
async function acceptTotp(ctx: AppContext, user: UserRow, secret: string, code: string): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  // Loaded on first use: only accounts with two-factor authentication need them (about 20 MB between the two).
  const { verify } = await import('otplib');
  const result = await verify({
    secret,
    token: code,
    epochTolerance: EPOCH_TOLERANCE_S,
    ...(user.mfaLastStep !== null ? { afterTimeStep: user.mfaLastStep } : {}),
  });
  if (!result.valid) return false;
  const step = 'timeStep' in result && typeof result.timeStep === 'number' ? result.timeStep : Math.floor(Date.now() / 30_000);
  await ctx.db.update(users).set({ mfaLastStep: step }).where(eq(users.id, user.id));
  return true;
}

/** The second factor at sign-in: a current TOTP code, or one unused recovery code. */
export async function checkSecondFactor(ctx: AppContext, user: UserRow, code: string): Promise<boolean> {
  if (!user.mfaSecret) return false;
  const trimmed = code.trim();
  if (await acceptTotp(ctx, user, ctx.box.open(user.mfaSecret), trimmed)) return true;
  const normalised = normaliseRecoveryCode(trimmed);
  if (normalised.length !== 12) return false;
  const used = await ctx.db
    .update(mfaRecoveryCodes)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(mfaRecoveryCodes.userId, user.id),
        eq(mfaRecoveryCodes.codeHash, sha256(normalised)),
        isNull(mfaRecoveryCodes.usedAt),
      ),
    )
    .returning({ id: mfaRecoveryCodes.id });
  return used.length > 0;
}

async function loadUser(ctx: AppContext, userId: number): Promise<UserRow> {
  const [row] = await ctx.db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!row) throw badRequest('User not found');
  return row;
}

export async function setupMfa(ctx: AppContext, principal: Principal) {
  const user = await loadUser(ctx, principal.userId);
  if (user.mfaSecret) throw badRequest('Two-factor authentication is already on. Turn it off first to set it up again.');
  const [{ generateSecret, generateURI }, { default: QRCode }] = await Promise.all([import('otplib'), import('qrcode')]);
  const secret = generateSecret();
  await ctx.db
    .update(users)
    .set({ mfaPendingSecret: ctx.box.seal(secret) })
    .where(eq(users.id, user.id));
  const otpauthUri = generateURI({ issuer: ISSUER, label: user.email, secret });
  return { secret, otpauth_uri: otpauthUri, qr_code: await QRCode.toDataURL(otpauthUri, { margin: 1, width: 240 }) };
}

export async function confirmMfa(ctx: AppContext, principal: Principal, code: string) {
  const user = await loadUser(ctx, principal.userId);
  if (user.mfaSecret) throw badRequest('Two-factor authentication is already on');
  if (!user.mfaPendingSecret) throw badRequest('Start the setup first: no authenticator secret is waiting to be confirmed');
  const secret = ctx.box.open(user.mfaPendingSecret);
  if (!(await acceptTotp(ctx, user, secret, code))) {
    throw badRequest('The code is not valid. Check the time on your device and try the current code.', [
      { path: 'code', message: 'Invalid code' },
    ]);
  }
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ mfaSecret: user.mfaPendingSecret, mfaPendingSecret: null, updatedAt: new Date() })
      .where(eq(users.id, user.id));
    await tx.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, user.id));
    await tx.insert(mfaRecoveryCodes).values(codes.map((c) => ({ userId: user.id, codeHash: sha256(normaliseRecoveryCode(c)) })));
  });
  ctx.principals.forgetUser(user.id);
  return { recovery_codes: codes };
}

export async function disableMfa(ctx: AppContext, principal: Principal, code: string) {
  const user = await loadUser(ctx, principal.userId);
  if (!user.mfaSecret) throw badRequest('Two-factor authentication is not on');
  if (!(await acceptTotp(ctx, user, ctx.box.open(user.mfaSecret), code))) {
    throw badRequest('The code is not valid', [{ path: 'code', message: 'Invalid code' }]);
  }
  await ctx.db.transaction(async (tx) => {
    await tx.update(users).set({ mfaSecret: null, mfaPendingSecret: null, updatedAt: new Date() }).where(eq(users.id, user.id));
    await tx.delete(mfaRecoveryCodes).where(eq(mfaRecoveryCodes.userId, user.id));
  });
  ctx.principals.forgetUser(user.id);
}
