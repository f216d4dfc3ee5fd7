import type { LoginRequest } from '@launchbay/contract';
import * as z from 'zod/mini';

/**
 * The contract's loginRequestSchema, rebuilt with zod/mini: the classic zod API adds ~20 KB
 * gzipped to the login page. Same rules and the spec's exact messages (section 5); the type
 * check below keeps both in step with the contract.
 */
export const loginFormSchema = z.object({
  email: z.email('Please enter a valid email address'),
  password: z.string().check(z.minLength(1, 'Password is required')),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameAsContract: Same<z.infer<typeof loginFormSchema>, LoginRequest> = true;
void sameAsContract;
