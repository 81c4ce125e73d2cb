import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { Token } from "./session.ts";
import { WEBAUTHN_LIMITS as L } from "../webauthn_limits.ts";

// Passkey unlock (spec §4 PIN unlock, extended): a passkey is a second way to unlock a device
// besides its PIN. Registration is a bearer call (after an unlock); the unlock is a device call
// like pwacheckpinvalid and shares its failure count. Only WebAuthn public data crosses: the
// PRF output the client derives its key from is never sent (clientExtensionResults must be
// empty). Every length bound is worked out in client/shared/webauthn_limits.ts from what the
// algorithms the server can offer produce.

const E = "/scmapi/expense";
const b64url = (max: number) =>
  z.string().check(z.regex(/^[A-Za-z0-9_-]*$/, "must be base64url"), z.maxLength(max));
const Transports = z.optional(z.array(z.string().check(z.maxLength(32))).check(z.maxLength(8)));
/** Extension outputs are never sent (the PRF output is one): any key is refused. */
const NoExtensionResults = z.record(z.string(), z.never());
const Attachment = z.optional(z.enum(["platform", "cross-platform"]));
const Descriptor = z.object({
  id: b64url(L.credentialId),
  type: z.literal("public-key"),
  transports: Transports,
});

/** PublicKeyCredentialCreationOptionsJSON, as the server makes it. */
export const CreationOptions = z.object({
  challenge: b64url(128),
  rp: z.object({ name: z.string(), id: z.optional(z.string()) }),
  user: z.object({ id: b64url(L.userHandle), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.object({ type: z.literal("public-key"), alg: z.number() })),
  timeout: z.optional(z.number()),
  excludeCredentials: z.optional(z.array(Descriptor)),
  authenticatorSelection: z.optional(z.object({
    residentKey: z.optional(z.enum(["discouraged", "preferred", "required"])),
    requireResidentKey: z.optional(z.boolean()),
    userVerification: z.optional(z.enum(["discouraged", "preferred", "required"])),
    authenticatorAttachment: Attachment,
  })),
  attestation: z.optional(z.enum(["none", "indirect", "direct", "enterprise"])),
});

/** PublicKeyCredentialRequestOptionsJSON, as the server makes it. */
export const RequestOptions = z.object({
  challenge: b64url(128),
  rpId: z.optional(z.string()),
  timeout: z.optional(z.number()),
  allowCredentials: z.optional(z.array(Descriptor)),
  userVerification: z.optional(z.enum(["discouraged", "preferred", "required"])),
});

/** RegistrationResponseJSON without extension outputs. */
export const RegistrationResponse = z.object({
  id: b64url(L.credentialId),
  rawId: b64url(L.credentialId),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: b64url(L.clientDataJSON),
    attestationObject: b64url(L.attestationObject),
    transports: Transports,
  }),
  clientExtensionResults: NoExtensionResults,
  authenticatorAttachment: Attachment,
});

/** AuthenticationResponseJSON without extension outputs. */
export const AuthenticationResponse = z.object({
  id: b64url(L.credentialId),
  rawId: b64url(L.credentialId),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: b64url(L.clientDataJSON),
    authenticatorData: b64url(L.authenticatorData),
    signature: b64url(L.signature),
    userHandle: z.optional(b64url(L.userHandle)),
  }),
  clientExtensionResults: NoExtensionResults,
  authenticatorAttachment: Attachment,
});

export const passkey = {
  registerOptions: endpoint({
    method: "POST",
    path: `${E}/pwapasskeyregoptions`,
    auth: "bearer",
    response: z.object({ options: CreationOptions }),
  }),
  register: endpoint({
    method: "POST",
    path: `${E}/pwapasskeyregister`,
    auth: "bearer",
    body: z.object({ response: RegistrationResponse }),
    response: z.object({ status: z.literal("OK") }),
  }),
  /** Switching passkey unlock off: the server forgets this device's passkey. */
  remove: endpoint({
    method: "POST",
    path: `${E}/pwapasskeydelete`,
    auth: "bearer",
    response: z.object({ status: z.literal("OK") }),
  }),
  unlockOptions: endpoint({
    method: "POST",
    path: `${E}/pwapasskeyunlockoptions`,
    auth: "device",
    response: z.object({ options: RequestOptions }),
  }),
  /**
   * Counted like a PIN attempt. `response` is null when the browser gave no assertion (failed
   * or refused user verification): still counted. `token` is empty when the passkey's key did
   * not open the sealed token.
   */
  unlock: endpoint({
    method: "POST",
    path: `${E}/pwapasskeyunlock`,
    auth: "device",
    body: z.object({
      token: z.union([Token, z.literal("")]),
      response: z.nullable(AuthenticationResponse),
    }),
    response: z.object({ status: z.literal("OK"), token: Token }),
  }),
};
