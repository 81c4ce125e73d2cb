/**
 * WebAuthn glue for passkey unlock (client/actions/passkey.ts): the server's options JSON to
 * the browser's types, the browser's credentials to the JSON the server verifies, and the PRF
 * output read out of the extension results. Loaded only with the passkey code (not in the
 * first load).
 *
 * Pitfalls kept in mind (researched for spec §4's passkey unlock): there is no reliable PRF
 * feature detection, so PRF is asked for and its absence noticed afterwards; the PRF request
 * is never empty (Windows Hello aborts on an empty one); `toJSON()` is not used (WebKit before
 * 26.5.1 crashes serialising PRF output, and it would put the PRF output into the JSON): the
 * JSON is built by hand, with empty extension results, so the PRF output is never sent.
 */
import type * as z from "zod/mini";
import type {
  AuthenticationResponse,
  CreationOptions,
  RegistrationResponse,
  RequestOptions,
} from "../shared/contract/passkey.ts";

export function b64urlBytes(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(
    atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)),
    (c) => c.charCodeAt(0),
  );
}

export function bytesB64url(buf: ArrayBuffer | ArrayBufferView): string {
  const b = buf instanceof ArrayBuffer
    ? new Uint8Array(buf)
    : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  let bin = "";
  for (let i = 0; i < b.length; i++) bin += String.fromCharCode(b[i]);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

type PrfInputs = { prf: { eval: { first: BufferSource } } };
type PrfOutputs = { prf?: { enabled?: boolean; results?: { first?: BufferSource } } };

/** Whether this browser has WebAuthn at all (PRF itself can only be found out by trying). */
export function webauthnAvailable(): boolean {
  return typeof PublicKeyCredential === "function" && !!navigator.credentials;
}

/** Creation options for `navigator.credentials.create`, asking for PRF with `prfInput`. */
export function creationOptions(
  o: z.infer<typeof CreationOptions>,
  prfInput: BufferSource,
): PublicKeyCredentialCreationOptions {
  return {
    challenge: b64urlBytes(o.challenge),
    rp: o.rp,
    user: { id: b64urlBytes(o.user.id), name: o.user.name, displayName: o.user.displayName },
    pubKeyCredParams: o.pubKeyCredParams,
    timeout: o.timeout,
    excludeCredentials: (o.excludeCredentials ?? []).map((c) => ({
      type: c.type,
      id: b64urlBytes(c.id),
      transports: c.transports as AuthenticatorTransport[] | undefined,
    })),
    authenticatorSelection: o.authenticatorSelection,
    attestation: o.attestation,
    extensions: { prf: { eval: { first: prfInput } } } satisfies PrfInputs as never,
  };
}

/** Request options for `navigator.credentials.get` of one credential, asking for PRF. */
export function requestOptions(
  o: z.infer<typeof RequestOptions> | null,
  credentialId: string,
  prfInput: BufferSource,
): PublicKeyCredentialRequestOptions {
  return {
    // Offline there is no server challenge: a local one (nothing is verified but the PRF).
    challenge: o ? b64urlBytes(o.challenge) : crypto.getRandomValues(new Uint8Array(32)),
    rpId: o?.rpId,
    timeout: o?.timeout ?? 60_000,
    allowCredentials: [{
      type: "public-key",
      id: b64urlBytes(credentialId),
      transports: o?.allowCredentials?.[0]?.transports as AuthenticatorTransport[] | undefined,
    }],
    userVerification: "required",
    extensions: { prf: { eval: { first: prfInput } } } satisfies PrfInputs as never,
  };
}

/** The PRF output of a credential, or null when the authenticator gave none. */
export function prfOutput(cred: PublicKeyCredential): BufferSource | null {
  const ext = cred.getClientExtensionResults() as PrfOutputs;
  return ext.prf?.results?.first ?? null;
}

/** Whether the authenticator said it supports PRF for this credential (at creation). */
export function prfEnabled(cred: PublicKeyCredential): boolean {
  const ext = cred.getClientExtensionResults() as PrfOutputs;
  return ext.prf?.enabled === true || !!ext.prf?.results?.first;
}

/** RegistrationResponseJSON, by hand, without extension outputs. */
export function registrationJson(cred: PublicKeyCredential): z.infer<typeof RegistrationResponse> {
  const r = cred.response as AuthenticatorAttestationResponse;
  const transports = typeof r.getTransports === "function" ? r.getTransports() : undefined;
  return {
    id: cred.id,
    rawId: bytesB64url(cred.rawId),
    type: "public-key",
    response: {
      clientDataJSON: bytesB64url(r.clientDataJSON),
      attestationObject: bytesB64url(r.attestationObject),
      transports,
    },
    clientExtensionResults: {},
    authenticatorAttachment: attachment(cred),
  };
}

/** AuthenticationResponseJSON, by hand, without extension outputs. */
export function assertionJson(cred: PublicKeyCredential): z.infer<typeof AuthenticationResponse> {
  const r = cred.response as AuthenticatorAssertionResponse;
  return {
    id: cred.id,
    rawId: bytesB64url(cred.rawId),
    type: "public-key",
    response: {
      clientDataJSON: bytesB64url(r.clientDataJSON),
      authenticatorData: bytesB64url(r.authenticatorData),
      signature: bytesB64url(r.signature),
      userHandle: r.userHandle ? bytesB64url(r.userHandle) : undefined,
    },
    clientExtensionResults: {},
    authenticatorAttachment: attachment(cred),
  };
}

function attachment(cred: PublicKeyCredential): "platform" | "cross-platform" | undefined {
  const a = cred.authenticatorAttachment;
  return a === "platform" || a === "cross-platform" ? a : undefined;
}
