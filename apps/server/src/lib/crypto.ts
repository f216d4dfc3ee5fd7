import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Secrets at rest (MFA secrets now; provider passwords, tokens and S3 keys later) are sealed with
 * AES-256-GCM. The key comes from ENCRYPTION_KEY (base64, 32 bytes; needed when several nodes
 * share one database) or is generated once into DATA_DIR/encryption.key.
 */
export type SecretBox = { seal(plain: string): string; open(sealed: string): string };

export function loadEncryptionKey(dataDir: string, envKey = process.env.ENCRYPTION_KEY): Buffer {
  if (envKey) {
    const key = Buffer.from(envKey, 'base64');
    if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes, base64-encoded');
    return key;
  }
  const file = path.join(dataDir, 'encryption.key');
  if (fs.existsSync(file)) return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  fs.writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' });
  return key;
}

export function createSecretBox(key: Buffer): SecretBox {
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed) {
      const raw = Buffer.from(sealed.replace(/^v1\./, ''), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export const randomToken = (prefix: string, bytes = 32) => `${prefix}${randomBytes(bytes).toString('base64url')}`;

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
