/**
 * Bounds on WebAuthn data (client/shared/contract/passkey.ts), worked out from what the
 * signature algorithms QCard can offer produce, not guessed: a bound below what an
 * authenticator legitimately sends refuses every unlock on that authenticator (Chromium 156
 * uses ML-DSA-44 when it is offered: 2,420-byte signatures, which a 1,024-character cap
 * refused). Shared by the server (what it offers, what it accepts) and the client.
 */

/** A signature algorithm passkeys may use, with the largest signature and public key it makes. */
export interface CoseAlgorithm {
  /** COSE algorithm identifier (IANA "COSE Algorithms" registry). */
  id: number;
  /** Largest signature, in bytes, as WebAuthn carries it. */
  signature: number;
  /** Largest public key as a COSE_Key, in bytes (key material plus the CBOR map's labels). */
  coseKey: number;
}

/** CBOR labels and headers of a COSE_Key map around its key material (kty, alg, crv, lengths). */
const COSE_MAP = 32;
/** RSA: moduli up to 4,096 bits (FIDO authenticators use 2,048; TPMs at most 4,096). */
const RSA_BYTES = 4096 / 8;

/** Every algorithm the server knows how to verify, by the name PASSKEY_ALGORITHMS uses. */
export const COSE_ALGORITHMS = {
  // FIPS 204, table 2: ML-DSA-44/65/87 signature and public key sizes.
  "ML-DSA-44": { id: -48, signature: 2420, coseKey: 1312 + COSE_MAP },
  "ML-DSA-65": { id: -49, signature: 3309, coseKey: 1952 + COSE_MAP },
  "ML-DSA-87": { id: -50, signature: 4627, coseKey: 2592 + COSE_MAP },
  // RFC 8032: Ed25519 signatures are 64 bytes, keys 32.
  EdDSA: { id: -8, signature: 64, coseKey: 32 + COSE_MAP },
  // ECDSA P-256 as DER (WebAuthn §6.5.5): SEQUENCE of two INTEGERs of ≤ 33 bytes: ≤ 72.
  ES256: { id: -7, signature: 72, coseKey: 64 + COSE_MAP },
  // RSASSA-PKCS1-v1_5 with SHA-256: the signature is as long as the modulus; e is ≤ 4 bytes.
  RS256: { id: -257, signature: RSA_BYTES, coseKey: RSA_BYTES + 4 + COSE_MAP },
} as const satisfies Record<string, CoseAlgorithm>;

export type CoseAlgorithmName = keyof typeof COSE_ALGORITHMS;

/** What QCard offers unless PASSKEY_ALGORITHMS says otherwise: post-quantum first. */
export const DEFAULT_PASSKEY_ALGORITHMS: readonly CoseAlgorithmName[] = [
  "ML-DSA-44",
  "EdDSA",
  "ES256",
  "RS256",
];

const largest = (pick: (a: CoseAlgorithm) => number) =>
  Math.max(...Object.values(COSE_ALGORITHMS).map(pick));

/** Characters of base64url (no padding) for `bytes` bytes. */
export const b64urlChars = (bytes: number): number => Math.ceil((bytes * 4) / 3);

/** WebAuthn §5.8.3 / §6.5.1: a credential id is at most 1,023 bytes. */
export const MAX_CREDENTIAL_ID = 1023;
/** WebAuthn §5.4.3: user.id (the user handle) is at most 64 bytes. */
export const MAX_USER_HANDLE = 64;
/** Extension outputs an authenticator may append (hmac-secret, credProtect, largeBlob…). */
const EXTENSIONS = 1024;
/**
 * An attestation statement's certificates (x5c): a leaf and an intermediate. QCard asks for
 * no attestation ("none"), which browsers honour by sending none; this is the room left for
 * one that sends its chain anyway (two ML-DSA-87 certificates are about 15 KB).
 */
const X5C = 16 * 1024;

/** authenticatorData of an assertion: rpIdHash, flags, counter, extension outputs. */
const ASSERTION_AUTH_DATA = 32 + 1 + 4 + EXTENSIONS;
/** authenticatorData of a registration: as above, plus the attested credential data. */
const REGISTRATION_AUTH_DATA = ASSERTION_AUTH_DATA + 16 + 2 + MAX_CREDENTIAL_ID +
  largest((a) => a.coseKey);
/** The attestation object: a CBOR map of fmt, attStmt (alg, sig, x5c) and authData. */
const ATTESTATION_OBJECT = 64 + REGISTRATION_AUTH_DATA + largest((a) => a.signature) + X5C;
/**
 * clientDataJSON: type, a challenge, origin and topOrigin (URLs: ≤ 1 KiB each here), flags and
 * Chromium's "other_keys_can_be_added_here" note.
 */
const CLIENT_DATA = 3 * 1024;

/** The bounds, in base64url characters, that the contract checks. */
export const WEBAUTHN_LIMITS = {
  credentialId: b64urlChars(MAX_CREDENTIAL_ID),
  userHandle: b64urlChars(MAX_USER_HANDLE),
  clientDataJSON: b64urlChars(CLIENT_DATA),
  authenticatorData: b64urlChars(ASSERTION_AUTH_DATA),
  attestationObject: b64urlChars(ATTESTATION_OBJECT),
  signature: b64urlChars(largest((a) => a.signature)),
} as const;
