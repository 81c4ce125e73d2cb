import type { Dictionary } from "./en.ts";

/**
 * French. Same keys and `{name}` placeholders as en.ts (checked by tests/unit/i18n_test.ts).
 * Typography: typographic apostrophe (’), "…" for ellipses, and a no-break space (U+00A0)
 * before a colon, semicolon, question mark or exclamation mark.
 */
export const fr: Dictionary = {
  "app.name": "QCard",
  "app.loading": "Chargement…",
  "app.startFailed": "QCard n’a pas pu démarrer. Veuillez recharger la page.",
  "app.version": "V {version}",
  "common.back": "Retour",
  "common.yes": "Oui",
  "common.no": "Non",
  "common.ok": "OK",
  "common.close": "Fermer",
  "common.somethingWrong": "Une erreur est survenue",
  "common.offline": "Vous êtes hors ligne : affichage des données enregistrées",
  "common.networkError": "Impossible de joindre le serveur. Veuillez réessayer.",
  "errors.title": "Messages",
  "errors.remove": "Supprimer le message : {message}",

  "pinpad.clear": "Effacer",
  "pinpad.backspace": "Supprimer le dernier chiffre",
  "pinpad.digit": "Chiffre {digit}",
  "pinpad.entered": "Chiffres saisis : {count} sur {length}",
  "pinpad.help": "Besoin d’aide ?",
  "pinpad.faq": "FAQ",
  "pinpad.chat": "Discuter avec l’assistance",
  "pinpad.sendActivation": "Envoyer l’e-mail d’activation",

  "activation.title": "Activer cet appareil",
  "activation.prompt": "Saisissez le code à 5 chiffres reçu dans votre e-mail d’activation",
  "activation.connect": "Connecter l’appareil",
  "activation.invalidCode": "Ce code d’activation n’est pas valide",
  "activation.tooMany": "Trop de tentatives, réessayez plus tard",

  "lost.title": "Envoyer l’e-mail d’activation",
  "lost.emailPrompt": "Saisissez l’adresse e-mail de votre compte",
  "lost.email": "E-mail",
  "lost.send": "Envoyer",
  "lost.questionPrompt": "Répondez à votre question secrète",
  "lost.answer": "Réponse",
  "lost.sendAnswer": "Envoyer la réponse",
  "lost.noPrevious": "Aucune activation précédente trouvée",
  "lost.sent":
    "Un nouvel e-mail d’activation a été envoyé. Saisissez son code pour activer cet appareil.",

  "pin.defineTitle": "Choisissez votre code PIN",
  "pin.definePrompt": "Choisissez un code PIN à 6 chiffres pour déverrouiller QCard",
  "pin.save": "Enregistrer",
  "pin.repetition":
    "Pour des raisons de sécurité, essayez de limiter les répétitions dans votre code PIN",
  "pin.sequence":
    "Pour des raisons de sécurité, n’utilisez pas de suite de chiffres consécutifs croissants ou décroissants",
  "pin.unlockTitle": "Déverrouiller QCard",
  "pin.unlockPrompt": "Saisissez votre code PIN",
  "pin.wrong": "Code PIN incorrect",
  "pin.attemptsLeft": "Code PIN incorrect. Tentatives restantes : {count}",
  "pin.wiped":
    "Trop de codes PIN incorrects : les données locales ont été supprimées. Activez de nouveau cet appareil.",
  "pin.unregistered": "Cet appareil n’est plus enregistré. Activez-le de nouveau.",

  "options.title": "Options",
  "options.open": "Ouvrir les options",
  "options.push": "Notifications push",
  "options.pushFailed": "Impossible de modifier les notifications push",
  "options.version": "Version",
  "options.released": "publiée le 11-02-2025",
  "options.about": "À propos",
  "options.aboutText":
    "QCard vous permet de soumettre des demandes de dépenses, d’utiliser des cartes virtuelles et de joindre des justificatifs, et permet aux approbateurs de décider rapidement. Votre jeton d’accès est chiffré sur cet appareil avec une clé dérivée de votre code PIN.",
  "options.removeLocal": "Supprimer les données locales",
  "options.removeConfirm": "Supprimer toutes les données locales de cet appareil ?",
  "options.removeExtra": "Vous devrez activer de nouveau cet appareil.",

  "menu.title": "Menu",
  "menu.open": "Ouvrir le menu",
  "menu.options": "Options",
  "menu.support": "Assistance",
  "menu.logout": "Se déconnecter",

  "main.requests": "Demandes",
  "main.wallet": "Portefeuille",
  "main.transactions": "Transactions",
  "main.support": "Assistance",
  "main.refresh": "Actualiser",
  "main.filter": "Filtrer",
  "main.hello": "Bonjour {name}",
  "main.badge": "Éléments à traiter : {count}",
  "main.noRequests": "Aucune demande pour le moment",
  "main.noCards": "Aucune carte pour le moment",
  "main.noTransactions": "Aucune transaction pour le moment",
  "main.noSupport": "Aucune page d’assistance n’est configurée",

  "mail.activation.subject": "Votre code d’activation QCard",
  "mail.activation.body":
    "Bonjour {fname},\n\nVotre code d’activation QCard est {code}.\nOuvrez QCard à l’adresse {url} et saisissez ce code pour activer votre appareil. Le code n’est utilisable qu’une seule fois et expire le {expires}.\n\nSi vous n’en avez pas fait la demande, ignorez cet e-mail.",
};
