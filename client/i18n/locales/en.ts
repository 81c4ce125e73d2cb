/**
 * English: the source language. Every UI string of the app and of its emails has a key
 * here; other locales must have exactly the same keys (tests/unit/i18n_test.ts).
 * `{name}` placeholders are filled by `t(key, {name})`.
 */
export const en = {
  "app.name": "QCard",
  "app.loading": "Loading…",
  "app.startFailed": "QCard could not start. Please reload.",
  "app.version": "V {version}",
  "common.back": "Back",
  "common.yes": "Yes",
  "common.no": "No",
  "common.ok": "OK",
  "common.close": "Close",
  "common.somethingWrong": "Something went wrong",
  "common.offline": "You are offline: showing saved data",
  "common.networkError": "The server could not be reached. Please try again.",
  "errors.title": "Messages",
  "errors.remove": "Remove message: {message}",

  "pinpad.clear": "Clear",
  "pinpad.backspace": "Delete last digit",
  "pinpad.digit": "Digit {digit}",
  "pinpad.entered": "{count} of {length} digits entered",
  "pinpad.help": "Need help?",
  "pinpad.faq": "FAQ",
  "pinpad.chat": "Chat with support",
  "pinpad.sendActivation": "Send activation email",

  "activation.title": "Activate this device",
  "activation.prompt": "Enter the 5-digit code from your activation email",
  "activation.connect": "Connect device",
  "activation.invalidCode": "This activation code is not valid",
  "activation.tooMany": "Too many attempts, try again later",

  "lost.title": "Send activation email",
  "lost.emailPrompt": "Enter the email address of your account",
  "lost.email": "Email",
  "lost.send": "Send",
  "lost.questionPrompt": "Answer your secret question",
  "lost.answer": "Answer",
  "lost.sendAnswer": "Send answer",
  "lost.noPrevious": "No previous activation found",
  "lost.sent": "A new activation email has been sent. Enter its code to activate this device.",

  "pin.defineTitle": "Choose your PIN",
  "pin.definePrompt": "Choose a 6-digit PIN to unlock QCard",
  "pin.save": "Save",
  "pin.repetition": "For security reasons, try using less repetition in your Pin",
  "pin.sequence":
    "For security reasons, do not use a direct sequence of ascending / descending numbers",
  "pin.unlockTitle": "Unlock QCard",
  "pin.unlockPrompt": "Enter your PIN",
  "pin.wrong": "Wrong PIN",
  "pin.attemptsLeft": "Wrong PIN. {count} attempts left",
  "pin.wiped": "Too many wrong PINs: local data was removed. Activate this device again.",
  "pin.unregistered": "This device is no longer registered. Activate it again.",

  "options.title": "Options",
  "options.open": "Options",
  "options.push": "Push notifications",
  "options.pushFailed": "Push notifications could not be changed",
  "options.version": "Version",
  "options.released": "released 11-02-2025",
  "options.about": "About",
  "options.aboutText":
    "QCard lets you request expenses, hold virtual cards and attach receipts, and lets approvers decide quickly. Your access token is encrypted on this device with a key derived from your PIN.",
  "options.removeLocal": "Remove local data",
  "options.removeConfirm": "Remove all local data from this device?",
  "options.removeExtra": "You will need to activate this device again.",

  "menu.title": "Menu",
  "menu.open": "Open menu",
  "menu.options": "Options",
  "menu.support": "Support",
  "menu.logout": "Log out",

  "main.requests": "Requests",
  "main.wallet": "Wallet",
  "main.transactions": "Transactions",
  "main.support": "Support",
  "main.refresh": "Refresh",
  "main.filter": "Filter",
  "main.hello": "Hello {name}",
  "main.badge": "{count} items need attention",
  "main.noRequests": "No requests yet",
  "main.noCards": "No cards yet",
  "main.noTransactions": "No transactions yet",
  "main.noSupport": "No support page is configured",

  "mail.activation.subject": "Your QCard activation code",
  "mail.activation.body":
    "Hello {fname},\n\nYour QCard activation code is {code}.\nOpen QCard at {url} and enter this code to activate your device. The code can be used once and expires on {expires}.\n\nIf you did not ask for it, ignore this email.",
} as const;

export type TranslationKey = keyof typeof en;
export type Dictionary = Record<TranslationKey, string>;
