import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';

export interface TlsMaterial {
  cert: string;
  key: string;
}

/**
 * The server always speaks TLS. Without TLS_CERT/TLS_KEY a self-signed certificate for localhost
 * is generated once into DATA_DIR/tls and reused on every start.
 */
export async function loadTls(config: Pick<Config, 'tlsCertPath' | 'tlsKeyPath' | 'dataDir'>): Promise<TlsMaterial> {
  if (config.tlsCertPath && config.tlsKeyPath) {
    return { cert: readFileSync(config.tlsCertPath, 'utf8'), key: readFileSync(config.tlsKeyPath, 'utf8') };
  }
  const directory = path.join(config.dataDir, 'tls');
  const certPath = path.join(directory, 'cert.pem');
  const keyPath = path.join(directory, 'key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
  }
  const generated = await generateSelfSigned();
  mkdirSync(directory, { recursive: true });
  writeFileSync(keyPath, generated.key, { mode: 0o600 });
  writeFileSync(certPath, generated.cert);
  chmodSync(keyPath, 0o600);
  return generated;
}

/** selfsigned (and its X.509 libraries, ~2 MB resident) is loaded only to make a certificate. */
export async function generateSelfSigned(): Promise<TlsMaterial> {
  const { default: selfsigned } = await import('selfsigned');
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000),
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
