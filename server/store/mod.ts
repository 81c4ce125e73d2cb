import { ApprovalRepo } from "./approvals.ts";
import { type BlobStore, KvBlobStore } from "./blobs.ts";
import { ChangeRepo } from "./changes.ts";
import { CodeRepo } from "./codes.ts";
import { CommentRepo } from "./comments.ts";
import { DeviceRepo } from "./devices.ts";
import { DocumentRepo } from "./documents.ts";
import { ExportRepo } from "./exports.ts";
import { OrgRepo } from "./org.ts";
import { OrgCache } from "./org_cache.ts";
import { PushSubscriptionRepo } from "./push_subscriptions.ts";
import { RateLimitRepo } from "./rate_limits.ts";
import { RequestRepo } from "./requests.ts";
import { SecureRepo } from "./secure.ts";
import { TransactionRepo } from "./transactions.ts";
import { UserRepo } from "./users.ts";
import { ChallengeRepo } from "./webauthn_challenges.ts";

/** One repository per entity, all over the same Deno KV. */
export interface Store {
  kv: Deno.Kv;
  users: UserRepo;
  devices: DeviceRepo;
  codes: CodeRepo;
  rateLimits: RateLimitRepo;
  org: OrgRepo;
  /** Teams, users, request types and accounts kept behind the organisation's version. */
  orgCache: OrgCache;
  requests: RequestRepo;
  comments: CommentRepo;
  approvals: ApprovalRepo;
  transactions: TransactionRepo;
  secure: SecureRepo;
  documents: DocumentRepo;
  /** Files of documents and receipts (spec §3 Document, Receipt). */
  blobs: BlobStore;
  /** Files of advanced-security documents: the document service's own store (own prefix). */
  secureBlobs: BlobStore;
  /** Push subscriptions by user (spec §3 Push registration). */
  pushSubs: PushSubscriptionRepo;
  /** One-time WebAuthn challenges (passkey registration and unlock). */
  challenges: ChallengeRepo;
  /** What changed for whom (the change channel: changes.ts). */
  changes: ChangeRepo;
  /** The accounting exports and what each carried (server/export/). */
  exports: ExportRepo;
}

export function createStore(kv: Deno.Kv): Store {
  return {
    kv,
    users: new UserRepo(kv),
    devices: new DeviceRepo(kv),
    codes: new CodeRepo(kv),
    rateLimits: new RateLimitRepo(kv),
    org: new OrgRepo(kv),
    orgCache: new OrgCache(kv),
    requests: new RequestRepo(kv),
    comments: new CommentRepo(kv),
    approvals: new ApprovalRepo(kv),
    transactions: new TransactionRepo(kv),
    secure: new SecureRepo(kv),
    documents: new DocumentRepo(kv),
    blobs: new KvBlobStore(kv, ["blob"]),
    secureBlobs: new KvBlobStore(kv, ["docsvc", "blob"]),
    pushSubs: new PushSubscriptionRepo(kv),
    challenges: new ChallengeRepo(kv),
    changes: new ChangeRepo(kv),
    exports: new ExportRepo(kv),
  };
}
