import { z } from 'zod';
import { emailSchema } from './common';

export const ROLE_TYPES = ['admin', 'user', 'reader'] as const;
export const roleTypeSchema = z.enum(ROLE_TYPES);
export type RoleType = z.infer<typeof roleTypeSchema>;

/** Spec section 5: the login form's own messages, reused by the server. */
export const loginRequestSchema = z.object({
  email: emailSchema,
  password: z.string().min(1, 'Password is required').max(1024, 'Password must be at most 1024 characters'),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const loginResponseSchema = z.object({
  mfa_required: z.boolean(),
  /** Session token for API clients (browsers use the httpOnly cookie). Absent while MFA is pending. */
  token: z.string().optional(),
  /** Short-lived token that identifies the pending MFA challenge for API clients. */
  mfa_token: z.string().optional(),
});
export type LoginResponse = z.infer<typeof loginResponseSchema>;

export const verifyMfaRequestSchema = z.object({
  code: z
    .string()
    .trim()
    .min(6, 'Enter the 6-digit code or a recovery code')
    .max(32, 'Enter the 6-digit code or a recovery code'),
  mfa_token: z.string().optional(),
});
export type VerifyMfaRequest = z.infer<typeof verifyMfaRequestSchema>;

export const verifyMfaResponseSchema = z.object({ token: z.string() });

export const currentUserSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string(),
  avatar_url: z.string().nullable(),
  roles: z.array(roleTypeSchema),
  mfa_enabled: z.boolean(),
});
export type CurrentUser = z.infer<typeof currentUserSchema>;

export const mfaSetupResponseSchema = z.object({
  secret: z.string(),
  otpauth_uri: z.string(),
  qr_code: z.string().describe('PNG data URL of the otpauth URI'),
});
export type MfaSetupResponse = z.infer<typeof mfaSetupResponseSchema>;

export const mfaCodeRequestSchema = z.object({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'Enter the 6-digit code from your authenticator app'),
});

export const mfaVerifyResponseSchema = z.object({
  recovery_codes: z.array(z.string()),
});
