import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import tls from 'node:tls';
import type { RouteTable, TlsCertificate } from '@launchbay/edge-protocol';

/**
 * The certificates the edge serves by name (SNI), loaded from the files the route table lists.
 * A new table swaps them whole, so a renewed certificate is served from the next handshake on,
 * without a restart. A file that cannot be loaded is skipped and said once: that name then gets no
 * certificate (the handshake fails) rather than another name's certificate.
 */
export class Certificates {
  #byName = new Map<string, tls.SecureContext>();
  #loaded = new Map<string, tls.SecureContext>();
  #fingerprints: string[] = [];
  #served: TlsCertificate[] = [];

  constructor(private readonly log: (message: string) => void) {}

  /** The fingerprints of the certificates being served (the identity answer reports them). */
  get fingerprints(): string[] {
    return this.#fingerprints;
  }

  /** The table's certificates that loaded and match their fingerprints, in the table's order (the nginx driver writes only these). */
  get served(): TlsCertificate[] {
    return this.#served;
  }

  replace(table: RouteTable): void {
    const byName = new Map<string, tls.SecureContext>();
    const loaded = new Map<string, tls.SecureContext>();
    const served: TlsCertificate[] = [];
    for (const certificate of table.certificates ?? []) {
      const context = this.#loaded.get(certificate.fingerprint) ?? this.#load(certificate);
      if (!context) continue;
      loaded.set(certificate.fingerprint, context);
      served.push(certificate);
      for (const name of certificate.names) byName.set(name, context);
    }
    this.#byName = byName;
    this.#loaded = loaded;
    this.#fingerprints = [...loaded.keys()];
    this.#served = served;
  }

  #load(certificate: TlsCertificate): tls.SecureContext | undefined {
    try {
      const cert = fs.readFileSync(certificate.certFile);
      const key = fs.readFileSync(certificate.keyFile);
      const leaf = new X509Certificate(cert);
      if (leaf.fingerprint256.replaceAll(':', '').toLowerCase() !== certificate.fingerprint.toLowerCase()) {
        this.log(`${certificate.certFile} is not the certificate the route table names; not serving it`);
        return undefined;
      }
      return tls.createSecureContext({ cert, key });
    } catch (error) {
      this.log(`cannot load the certificate for ${certificate.names.join(', ')}: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** The context for a server name: the exact name, else a wildcard one label up. */
  contextFor(serverName: string): tls.SecureContext | undefined {
    const name = serverName.toLowerCase();
    const exact = this.#byName.get(name);
    if (exact) return exact;
    const dot = name.indexOf('.');
    return dot > 0 ? this.#byName.get(`*${name.slice(dot)}`) : undefined;
  }

  has(host: string): boolean {
    return this.contextFor(host) !== undefined;
  }
}
