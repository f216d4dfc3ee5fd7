import { zodResolver } from '@hookform/resolvers/zod';
import { loginFormSchema } from './login-schema';

export const loginResolver = zodResolver(loginFormSchema);
