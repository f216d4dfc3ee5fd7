import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type CertificateFiles = { certFile: string; keyFile: string; cert: string; key: string };

/**
 * A fresh self-signed certificate (EC P-256, valid two days) made by openssl for these names: DNS
 * names, wildcards or IP addresses, the first one its common name. The PEM files stay in `dir` (a
 * new temp folder unless given; the caller removes it), the key with mode 0600.
 */
export function makeCertificate(names: string[], options: { dir?: string; name?: string } = {}): CertificateFiles {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lb-cert-'));
  const base = path.join(dir, options.name ?? 'cert');
  const subjectAltNames = names.map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${base}.key`,
      '-out',
      `${base}.pem`,
      '-days',
      '2',
      '-subj',
      `/CN=${names[0]}`,
      '-addext',
      `subjectAltName=${subjectAltNames}`,
    ],
    { stdio: 'pipe' },
  );
  fs.chmodSync(`${base}.key`, 0o600);
  return {
    certFile: `${base}.pem`,
    keyFile: `${base}.key`,
    cert: fs.readFileSync(`${base}.pem`, 'utf8'),
    key: fs.readFileSync(`${base}.key`, 'utf8'),
  };
}
