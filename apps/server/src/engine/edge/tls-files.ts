import fs from 'node:fs';
import path from 'node:path';
import { edgePaths, writeFileAtomic } from '@launchbay/edge-protocol';

/**
 * The edge's working copies of the certificates it serves: the database keeps them sealed; the
 * edge (and nginx) read files. One pair per certificate, named by its fingerprint (so a renewed
 * certificate is a new pair and the edge never reads half a swap), readable by the owner only.
 */
export function tlsDirectory(dataDir: string): string {
  return path.join(edgePaths(dataDir).dir, 'tls');
}

export function writeCertificateFiles(
  dataDir: string,
  fingerprint: string,
  chainPem: string,
  keyPem: string,
): { certFile: string; keyFile: string } {
  const dir = tlsDirectory(dataDir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const certFile = path.join(dir, `${fingerprint}.crt`);
  const keyFile = path.join(dir, `${fingerprint}.key`);
  if (!fs.existsSync(keyFile)) writeFileAtomic(keyFile, keyPem);
  if (!fs.existsSync(certFile)) writeFileAtomic(certFile, chainPem);
  return { certFile, keyFile };
}

/** Removes the pairs of certificates no longer served. */
export function pruneCertificateFiles(dataDir: string, keep: ReadonlySet<string>): void {
  const dir = tlsDirectory(dataDir);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const fingerprint = name.replace(/\.(crt|key)$/, '');
    if (!keep.has(fingerprint)) fs.rmSync(path.join(dir, name), { force: true });
  }
}
