/**
 * English, spread by en.ts (which says which part holds what): the declaration of a purchase
 * without receipt (`declare.`).
 */
export const enDeclare = {
  "declare.open": "No receipt?",
  "declare.title": "Declare: no receipt",
  "declare.intro":
    "If the receipt cannot be had (lost, or the merchant gave none), declare what was bought and why.",
  "declare.what": "What was bought",
  "declare.reason": "Why there is no receipt",
  "declare.confirm": "I, {name}, confirm that this declaration is true ({time}).",
  "declare.submit": "Declare",
  "declare.cancel": "Cancel",
  "declare.required": "Fill in both fields and tick the confirmation.",
  "declare.done": "Declaration recorded",
  "declare.heading": "No-receipt declaration",
  "declare.by": "Declared by {name} on {time}",
  "declare.pending": "Waiting for an approver to accept it",
  "declare.accepted": "Accepted by {name} on {time}",
  "declare.withdraw": "Withdraw declaration",
  "declare.withdrawConfirm": "Withdraw this declaration? The receipt will be missing again.",
  "declare.withdrawn": "Declaration withdrawn",
  "declare.off": "Declarations without receipt are switched off in your organisation.",
  "declare.notPurchase": "Only a captured or authorised purchase can be declared without receipt.",
  "declare.reviewed": "This transaction is reviewed: its declaration can no longer change.",
  "declare.hasReceipt": "This transaction already has a receipt.",
  "declare.exists": "This transaction already has a declaration.",
  "declare.none": "This transaction has no declaration.",
  "declare.notPending": "This declaration is not waiting for approval.",
  "declare.listTitle": "No-receipt declarations",
  "declare.accept": "Accept",
  "declare.refuse": "Refuse",
  "declare.acceptFor": "Accept the declaration: {what}",
  "declare.refuseFor": "Refuse the declaration: {what}",
  "declare.acceptedNotice": "Declaration accepted",
  "declare.refusedNotice": "Declaration refused",
} as const;
