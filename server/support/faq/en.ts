/** The support page in English (server/support/faq.ts). */
import type { FaqText } from "./types.ts";

export const en: FaqText = {
  language: "English",
  title: "QCard help and FAQ",
  intro:
    "Answers to the questions people ask most. This page is stored on your device, so it opens without a network too.",
  languages: "Language",
  topics: [
    {
      id: "activation",
      title: "Activation",
      items: [
        [
          "How do I activate QCard on my phone?",
          "Your organisation sends you an activation email with a 5-digit code. Open QCard, type the code on the keypad, tap 'Connect device', then choose your 6-digit PIN.",
        ],
        [
          "My code expired or I lost the email. What now?",
          "On the PIN pad, tap 'Send activation email', enter the email address of your account and answer your secret question. A new code is emailed to you; each code works once.",
        ],
      ],
    },
    {
      id: "pin",
      title: "PIN",
      items: [
        [
          "Which PIN can I choose?",
          "Six digits. For security reasons QCard refuses a digit repeated more than three times in a row, straight sequences such as 123456 or 987654, and repeated patterns such as 121212 or 123123.",
        ],
        [
          "What happens after wrong PINs?",
          "After five wrong PINs in a row, QCard removes its data from this device and you activate it again. Your requests, cards and receipts stay safe on the server.",
        ],
      ],
    },
    {
      id: "requests",
      title: "Requests",
      items: [
        [
          "How do I request an expense?",
          "In request mode, tap 'New request', choose the type, enter the amount (or a budget for recurring expenses), the currency and the purpose, then submit. Your approvers decide, level by level.",
        ],
        [
          "Why can I not create a request?",
          "Card payments whose receipt is overdue must get their receipt first; the badge counts what needs you. Your organisation may also not let you create requests.",
        ],
      ],
    },
    {
      id: "cards",
      title: "Virtual cards",
      items: [
        [
          "How do I get a card?",
          "Open an accepted request and tap 'Generate card'. The first time, set up 3-D Secure: a password and a mobile phone number used to confirm online payments.",
        ],
        [
          "How do I see the card number?",
          "In the card's detail, tap 'Show card details': the number and CVC show for 30 seconds. Freeze the card to refuse payments until you unfreeze it.",
        ],
      ],
    },
    {
      id: "receipts",
      title: "Receipts",
      items: [
        [
          "How do I add a receipt?",
          "Open the payment in Transactions and tap 'Attach receipt': take a photo or choose a JPEG, PNG or PDF file. Photos are made smaller on your phone before they are sent.",
        ],
        [
          "When is a receipt due?",
          "Your organisation gives a number of days after each card payment. An overdue receipt is shown in the badge and blocks new requests until it is attached.",
        ],
      ],
    },
    {
      id: "vat",
      title: "VAT",
      items: [
        [
          "How do I record the VAT of a payment?",
          "In the transaction, set the VAT type: unknown, no VAT or has VAT. Where your organisation asks for details, choose the country and up to three VAT codes; each VAT amount is computed for you.",
        ],
        [
          "Why can I not change the VAT?",
          "A reviewed transaction can no longer be changed, and refused or moved transactions have no VAT.",
        ],
      ],
    },
    {
      id: "offline",
      title: "Without a network",
      items: [
        [
          "Does QCard work offline?",
          "Yes. It shows the data saved on this device, encrypted with a key from your PIN. Comments, receipt notes, VAT and receipts you add offline wait on the device and are sent when the network returns.",
        ],
        [
          "What needs a network?",
          "Activation, approving or rejecting, creating a card and moving a payment to another expense: these always wait for the server's answer.",
        ],
      ],
    },
  ],
};
