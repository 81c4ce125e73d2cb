/** French, spread by fr.ts: what the phone read from a receipt (`reading.`; en_reading.ts). */
export const frReading = {
  "reading.busy": "Lecture du justificatif…",
  "reading.title": "Lu sur le justificatif",
  "reading.total": "Montant total",
  "reading.date": "Date du justificatif",
  "reading.merchant": "Commerçant",
  "reading.vat": "TVA",
  "reading.vatLine": "TVA {rate} % : {amount}",
  "reading.unsure": "incertain : à vérifier",
  "reading.nothing": "Rien n’a pu être lu sur ce justificatif : saisissez ce qu’il indique.",
  "reading.unavailable":
    "Ce téléphone ne sait pas lire les justificatifs : saisissez ce qu’il indique.",
  "reading.matches": "Le justificatif correspond au paiement",
  "reading.totalDiffers": "Total du justificatif {receipt} — paiement {payment}",
  "reading.dateDiffers": "Justificatif daté du {receipt} — paiement du {payment}",
  "reading.tip": "Le paiement dépasse de {diff} : un pourboire ?",
  "reading.partial": "Le paiement est inférieur de {diff} : débit partiel ?",
  "reading.useVat": "Utiliser pour la TVA",
  "reading.dismiss": "Masquer",
  "reading.sent": "Lu sur le téléphone : {what}",
  "reading.sentMatch": "correspond au paiement",
  "reading.sentDiffers": "diffère du paiement",
};
