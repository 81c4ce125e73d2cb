/** The shape of the support page's texts (server/support/faq.ts), one per language. */
export type TopicId =
  | "activation"
  | "pin"
  | "requests"
  | "cards"
  | "receipts"
  | "vat"
  | "offline";

export interface FaqText {
  /** The language's own name, for the language links. */
  language: string;
  /** <title> and <h1>. */
  title: string;
  intro: string;
  /** aria-label of the language links. */
  languages: string;
  topics: { id: TopicId; title: string; items: [question: string, answer: string][] }[];
}
