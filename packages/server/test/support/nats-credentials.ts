import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nkeys } from '@nats-io/transport-node';

/**
 * Credentials for the nats-servers of tests: NKeys, an operator / account / user chain of JWTs (what
 * `nsc` makes, which is not installed here: the JWTs are written by hand, the format of
 * nats-io/jwt v2: `base64url(header).base64url(claims).base64url(ed25519 signature)`, each signed by
 * its issuer's NKey), and a certificate authority with a server and a client certificate made by
 * openssl.
 */

type KeyPair = ReturnType<typeof nkeys.createUser>;

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A new NKey user: its seed (`SU...`) and public key (`U...`). */
export function nkeyUser(): { seed: string; publicKey: string } {
  const pair = nkeys.createUser();
  return { seed: text(pair.getSeed()), publicKey: pair.getPublicKey() };
}

function jwt(issuer: KeyPair, subject: string, name: string, nats: Record<string, unknown>): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = { jti: randomBytes(16).toString('hex').toUpperCase(), iat: Math.floor(Date.now() / 1000), iss: issuer.getPublicKey(), name, sub: subject, nats: { ...nats, version: 2 } };
  const signed = `${encode({ typ: 'JWT', alg: 'ed25519-nkey' })}.${encode(claims)}`;
  return `${signed}.${Buffer.from(issuer.sign(new TextEncoder().encode(signed))).toString('base64url')}`;
}

/** A creds file's text, as `nsc generate creds` writes it. */
export function credsFile(userJwt: string, seed: string): string {
  return [
    '-----BEGIN NATS USER JWT-----',
    userJwt,
    '------END NATS USER JWT------',
    '',
    '************************* IMPORTANT *************************',
    'NKEY Seed printed below can be used to sign and prove identity.',
    'NKEYs are sensitive and should be treated as secrets.',
    '',
    '-----BEGIN USER NKEY SEED-----',
    seed,
    '------END USER NKEY SEED------',
    '',
  ].join('\n');
}

/**
 * An operator with one account (JetStream allowed) and a user of it: the server's configuration
 * (operator mode, accounts preloaded in memory) and the user's creds file; `stranger` is the creds of a
 * user of the same name signed by an account the operator never signed.
 */
export function operatorMode(): { serverConfig: string; creds: string; stranger: string } {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const unlimited = { subs: -1, data: -1, payload: -1 };
  const operatorJwt = jwt(operator, operator.getPublicKey(), 'eql-operator', { type: 'operator' });
  const accountJwt = jwt(operator, account.getPublicKey(), 'eql', {
    type: 'account',
    limits: { ...unlimited, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1, mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 },
  });
  const userOf = (issuer: KeyPair) => {
    const user = nkeys.createUser();
    return credsFile(jwt(issuer, user.getPublicKey(), 'eql-host', { type: 'user', pub: {}, sub: {}, ...unlimited }), text(user.getSeed()));
  };
  // JetStream in operator mode needs a system account.
  const system = nkeys.createAccount();
  const systemJwt = jwt(operator, system.getPublicKey(), 'SYS', { type: 'account', limits: { ...unlimited, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 } });
  const serverConfig = [
    `operator: ${operatorJwt}`,
    `system_account: ${system.getPublicKey()}`,
    'resolver: MEMORY',
    `resolver_preload: { ${account.getPublicKey()}: ${accountJwt}, ${system.getPublicKey()}: ${systemJwt} }`,
  ].join('\n');
  return { serverConfig, creds: userOf(account), stranger: userOf(nkeys.createAccount()) };
}

/** Files of a test certificate authority (EC P-256, a day): the CA, a server certificate for 127.0.0.1, a client certificate, and a client certificate of another CA. */
export interface TestCertificates {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  strangerCert: string;
  strangerKey: string;
}

/** Makes a CA and its certificates with openssl in `dir`. */
export function makeCertificates(dir: string): TestCertificates {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const key = (name: string) => openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file(name));
  const authority = (name: string) => {
    key(`${name}.key`);
    openssl('req', '-x509', '-new', '-key', file(`${name}.key`), '-out', file(`${name}.pem`), '-days', '1', '-subj', `/CN=${name}`);
  };
  const issue = (name: string, by: string, extensions: string) => {
    key(`${name}.key`);
    openssl('req', '-new', '-key', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', `/CN=${name}`);
    writeFileSync(file(`${name}.ext`), extensions);
    openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file(`${by}.pem`), '-CAkey', file(`${by}.key`), '-CAcreateserial', '-out', file(`${name}.pem`), '-days', '1', '-extfile', file(`${name}.ext`));
  };
  authority('eql-test-ca');
  authority('stranger-ca');
  issue('server', 'eql-test-ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  issue('client', 'eql-test-ca', 'extendedKeyUsage=clientAuth\n');
  issue('stranger', 'stranger-ca', 'extendedKeyUsage=clientAuth\n');
  return {
    ca: file('eql-test-ca.pem'),
    serverCert: file('server.pem'),
    serverKey: file('server.key'),
    clientCert: file('client.pem'),
    clientKey: file('client.key'),
    strangerCert: file('stranger.pem'),
    strangerKey: file('stranger.key'),
  };
}
