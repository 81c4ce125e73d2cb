import type { Dictionary } from "./en.ts";

/**
 * French, spread by fr.ts (which says which part holds what): the declaration of a purchase
 * without receipt (`declare.`).
 */
export const frDeclare = {
  "declare.open": "Pas de justificatif ?",
  "declare.title": "Déclarer : pas de justificatif",
  "declare.intro":
    "Si le justificatif ne peut pas être obtenu (perdu, ou le commerçant n’en a pas remis), déclarez ce qui a été acheté et pourquoi.",
  "declare.what": "Ce qui a été acheté",
  "declare.reason": "Pourquoi il n’y a pas de justificatif",
  "declare.confirm": "Je soussigné(e), {name}, confirme que cette déclaration est exacte ({time}).",
  "declare.submit": "Déclarer",
  "declare.cancel": "Annuler",
  "declare.required": "Remplissez les deux champs et cochez la confirmation.",
  "declare.done": "Déclaration enregistrée",
  "declare.heading": "Déclaration d’absence de justificatif",
  "declare.by": "Déclaré par {name} le {time}",
  "declare.pending": "En attente d’acceptation par un approbateur",
  "declare.accepted": "Acceptée par {name} le {time}",
  "declare.withdraw": "Retirer la déclaration",
  "declare.withdrawConfirm": "Retirer cette déclaration ? Le justificatif manquera de nouveau.",
  "declare.withdrawn": "Déclaration retirée",
  "declare.off": "Les déclarations sans justificatif sont désactivées dans votre organisation.",
  "declare.notPurchase": "Seul un achat capturé ou autorisé peut être déclaré sans justificatif.",
  "declare.reviewed": "Cette transaction est vérifiée : sa déclaration ne peut plus changer.",
  "declare.hasReceipt": "Cette transaction a déjà un justificatif.",
  "declare.exists": "Cette transaction a déjà une déclaration.",
  "declare.none": "Cette transaction n’a pas de déclaration.",
  "declare.notPending": "Cette déclaration n’attend pas d’approbation.",
  "declare.listTitle": "Déclarations d’absence de justificatif",
  "declare.accept": "Accepter",
  "declare.refuse": "Refuser",
  "declare.acceptFor": "Accepter la déclaration : {what}",
  "declare.refuseFor": "Refuser la déclaration : {what}",
  "declare.acceptedNotice": "Déclaration acceptée",
  "declare.refusedNotice": "Déclaration refusée",
} satisfies Partial<Dictionary>;
