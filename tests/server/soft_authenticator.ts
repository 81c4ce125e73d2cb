/**
 * A software WebAuthn authenticator for the passkey tests: a real key of any algorithm QCard
 * can offer (client/shared/webauthn_limits.ts: ES256 by default, EdDSA, RS256 with a 4,096-bit
 * modulus, ML-DSA-44/65/87; WebCrypto), real "none" attestation objects and real signed
 * assertions (CBOR through @simplewebauthn/server's own helpers), so the server's verification
 * really runs, with signatures and keys as large as each algorithm makes them.
 */
import { isoCBOR } from "@simplewebauthn/server/helpers";
import { COSE_ALGORITHMS, type CoseAlgorithmName } from "../../client/shared/webauthn_limits.ts";

const enc = new TextEncoder();

export function b64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromB64url(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(
    atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)),
    (c) => c.charCodeAt(0),
  );
}

const sha256 = async (b: Uint8Array<ArrayBuffer>) =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", b));

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const u32 = (n: number) => new Uint8Array([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

/** WebCrypto's raw r||s ECDSA signature as the DER sequence WebAuthn carries. */
function derSignature(raw: Uint8Array): Uint8Array {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let v = b.slice(i);
    if (v[0] & 0x80) v = concat(new Uint8Array([0]), v);
    return concat(new Uint8Array([0x02, v.length]), v);
  };
  const body = concat(int(raw.slice(0, 32)), int(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

export interface SoftAuthenticator {
  credentialId: string;
  /** The COSE key, as the attested credential data carries it (its size, for the bounds). */
  coseKey: Uint8Array;
  counter: number;
  /** A registration response for `options` (the server's creation options JSON). */
  register(
    options: { challenge: string; rp: { id?: string } },
    origin: string,
  ): Promise<Record<string, unknown>>;
  /** An assertion for `challenge`; `userVerified` false leaves the UV flag off. */
  assert(
    challenge: string,
    rpID: string,
    origin: string,
    opts?: { userVerified?: boolean; counter?: number },
  ): Promise<Record<string, unknown>>;
}

interface KeyKind {
  generate: AlgorithmIdentifier | RsaHashedKeyGenParams | EcKeyGenParams;
  sign: AlgorithmIdentifier | EcdsaParams;
  /** The COSE_Key map's entries besides kty and alg. */
  cose(pub: CryptoKey): Promise<[number, number | Uint8Array][]>;
  kty: number;
  /** The signature as WebAuthn carries it (ECDSA: DER). */
  wire?(raw: Uint8Array): Uint8Array;
}

const jwkOf = (k: CryptoKey) => crypto.subtle.exportKey("jwk", k);
const mlDsa = (name: string): KeyKind => ({
  generate: { name },
  sign: { name },
  kty: 7, // AKP
  cose: async (pub) => [[-1, fromB64url((await jwkOf(pub) as { pub: string }).pub)]],
});

const KINDS: Record<CoseAlgorithmName, KeyKind> = {
  ES256: {
    generate: { name: "ECDSA", namedCurve: "P-256" },
    sign: { name: "ECDSA", hash: "SHA-256" },
    kty: 2, // EC2
    cose: async (pub) => {
      const j = await jwkOf(pub);
      return [[-1, 1], [-2, fromB64url(j.x!)], [-3, fromB64url(j.y!)]];
    },
    wire: derSignature,
  },
  EdDSA: {
    generate: { name: "Ed25519" },
    sign: { name: "Ed25519" },
    kty: 1, // OKP
    cose: async (pub) => [[-1, 6], [-2, fromB64url((await jwkOf(pub)).x!)]],
  },
  RS256: {
    generate: {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 4096,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    sign: { name: "RSASSA-PKCS1-v1_5" },
    kty: 3, // RSA
    cose: async (pub) => {
      const j = await jwkOf(pub);
      return [[-1, fromB64url(j.n!)], [-2, fromB64url(j.e!)]];
    },
  },
  "ML-DSA-44": mlDsa("ML-DSA-44"),
  "ML-DSA-65": mlDsa("ML-DSA-65"),
  "ML-DSA-87": mlDsa("ML-DSA-87"),
};

export async function softAuthenticator(
  alg: CoseAlgorithmName = "ES256",
): Promise<SoftAuthenticator> {
  const kind = KINDS[alg];
  const keys = await crypto.subtle.generateKey(kind.generate, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const credId = crypto.getRandomValues(new Uint8Array(32));
  const cose = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, kind.kty],
      [3, COSE_ALGORITHMS[alg].id],
      ...await kind.cose(keys.publicKey),
    ]),
  );
  const clientData = (type: string, challenge: string, origin: string) =>
    enc.encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  const a: SoftAuthenticator = {
    credentialId: b64url(credId),
    coseKey: cose,
    counter: 0,
    async register(options, origin) {
      const rpID = options.rp.id ?? new URL(origin).hostname;
      const authData = concat(
        await sha256(enc.encode(rpID)),
        new Uint8Array([0x45]), // UP | UV | AT
        u32(a.counter),
        new Uint8Array(16), // AAGUID
        new Uint8Array([0, credId.length]),
        credId,
        cose,
      );
      const attestationObject = isoCBOR.encode(
        new Map<string, string | Map<string, string> | Uint8Array>([
          ["fmt", "none"],
          ["attStmt", new Map()],
          ["authData", authData],
        ]),
      );
      return {
        id: a.credentialId,
        rawId: a.credentialId,
        type: "public-key",
        response: {
          clientDataJSON: b64url(clientData("webauthn.create", options.challenge, origin)),
          attestationObject: b64url(attestationObject),
          transports: ["internal"],
        },
        clientExtensionResults: {},
        authenticatorAttachment: "platform",
      };
    },
    async assert(challenge, rpID, origin, opts = {}) {
      a.counter = opts.counter ?? a.counter + 1;
      const flags = opts.userVerified === false ? 0x01 : 0x05; // UP (| UV)
      const authData = concat(
        await sha256(enc.encode(rpID)),
        new Uint8Array([flags]),
        u32(a.counter),
      );
      const cd = clientData("webauthn.get", challenge, origin);
      const raw = new Uint8Array(
        await crypto.subtle.sign(kind.sign, keys.privateKey, concat(authData, await sha256(cd))),
      );
      return {
        id: a.credentialId,
        rawId: a.credentialId,
        type: "public-key",
        response: {
          clientDataJSON: b64url(cd),
          authenticatorData: b64url(authData),
          signature: b64url(kind.wire ? kind.wire(raw) : raw),
        },
        clientExtensionResults: {},
        authenticatorAttachment: "platform",
      };
    },
  };
  return a;
}
