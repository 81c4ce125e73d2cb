import type { Dictionary } from "./en.ts";

/**
 * Spanish, spread by es.ts (which says which part holds what): the declaration of a purchase
 * without receipt (`declare.`).
 */
export const esDeclare = {
  "declare.open": "¿Sin recibo?",
  "declare.title": "Declarar: sin recibo",
  "declare.intro":
    "Si no se puede obtener el recibo (perdido, o el comercio no lo dio), declare qué se compró y por qué.",
  "declare.what": "Qué se compró",
  "declare.reason": "Por qué no hay recibo",
  "declare.confirm": "Yo, {name}, confirmo que esta declaración es verdadera ({time}).",
  "declare.submit": "Declarar",
  "declare.cancel": "Cancelar",
  "declare.required": "Rellene ambos campos y marque la confirmación.",
  "declare.done": "Declaración registrada",
  "declare.heading": "Declaración sin recibo",
  "declare.by": "Declarado por {name} el {time}",
  "declare.pending": "Pendiente de que un aprobador la acepte",
  "declare.accepted": "Aceptada por {name} el {time}",
  "declare.withdraw": "Retirar la declaración",
  "declare.withdrawConfirm": "¿Retirar esta declaración? El recibo volverá a faltar.",
  "declare.withdrawn": "Declaración retirada",
  "declare.off": "Las declaraciones sin recibo están desactivadas en su organización.",
  "declare.notPurchase": "Solo una compra capturada o autorizada puede declararse sin recibo.",
  "declare.reviewed": "Esta transacción está revisada: su declaración ya no puede cambiar.",
  "declare.hasReceipt": "Esta transacción ya tiene un recibo.",
  "declare.exists": "Esta transacción ya tiene una declaración.",
  "declare.none": "Esta transacción no tiene declaración.",
  "declare.notPending": "Esta declaración no espera aprobación.",
  "declare.listTitle": "Declaraciones sin recibo",
  "declare.accept": "Aceptar",
  "declare.refuse": "Rechazar",
  "declare.acceptFor": "Aceptar la declaración: {what}",
  "declare.refuseFor": "Rechazar la declaración: {what}",
  "declare.acceptedNotice": "Declaración aceptada",
  "declare.refusedNotice": "Declaración rechazada",
} satisfies Partial<Dictionary>;
