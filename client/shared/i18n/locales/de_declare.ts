import type { Dictionary } from "./en.ts";

/**
 * German, spread by de.ts (which says which part holds what): the declaration of a purchase
 * without receipt (`declare.`).
 */
export const deDeclare = {
  "declare.open": "Kein Beleg?",
  "declare.title": "Erklärung: kein Beleg",
  "declare.intro":
    "Wenn der Beleg nicht zu bekommen ist (verloren, oder der Händler gab keinen), erklären Sie, was gekauft wurde und warum.",
  "declare.what": "Was gekauft wurde",
  "declare.reason": "Warum es keinen Beleg gibt",
  "declare.confirm": "Ich, {name}, bestätige, dass diese Erklärung zutrifft ({time}).",
  "declare.submit": "Erklären",
  "declare.cancel": "Abbrechen",
  "declare.required": "Füllen Sie beide Felder aus und setzen Sie das Häkchen zur Bestätigung.",
  "declare.done": "Erklärung gespeichert",
  "declare.heading": "Erklärung „kein Beleg“",
  "declare.by": "Erklärt von {name} am {time}",
  "declare.pending": "Wartet auf die Annahme durch eine genehmigende Person",
  "declare.accepted": "Angenommen von {name} am {time}",
  "declare.withdraw": "Erklärung zurückziehen",
  "declare.withdrawConfirm": "Diese Erklärung zurückziehen? Der Beleg fehlt dann wieder.",
  "declare.withdrawn": "Erklärung zurückgezogen",
  "declare.off": "Erklärungen ohne Beleg sind in Ihrer Organisation ausgeschaltet.",
  "declare.notPurchase":
    "Nur ein gebuchter oder autorisierter Kauf kann ohne Beleg erklärt werden.",
  "declare.reviewed": "Diese Transaktion ist geprüft: ihre Erklärung kann sich nicht mehr ändern.",
  "declare.hasReceipt": "Diese Transaktion hat bereits einen Beleg.",
  "declare.exists": "Diese Transaktion hat bereits eine Erklärung.",
  "declare.none": "Diese Transaktion hat keine Erklärung.",
  "declare.notPending": "Diese Erklärung wartet nicht auf eine Genehmigung.",
  "declare.listTitle": "Erklärungen „kein Beleg“",
  "declare.accept": "Annehmen",
  "declare.refuse": "Ablehnen",
  "declare.acceptFor": "Erklärung annehmen: {what}",
  "declare.refuseFor": "Erklärung ablehnen: {what}",
  "declare.acceptedNotice": "Erklärung angenommen",
  "declare.refusedNotice": "Erklärung abgelehnt",
} satisfies Partial<Dictionary>;
